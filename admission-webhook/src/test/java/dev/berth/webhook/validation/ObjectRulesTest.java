package dev.berth.webhook.validation;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Each case breaks one rule and names the field the error must point at. */
class ObjectRulesTest {
  static final String CQ =
      """
      apiVersion: berth.dev/v1beta1
      kind: ClusterQueue
      metadata: {name: cq}
      spec:
        cohortName: ai
        namespaceSelector: {}
        resourceGroups:
        - coveredResources: [cpu, nvidia.com/gpu]
          flavors:
          - name: h100
            resources:
            - {name: cpu, nominalQuota: "96", borrowingLimit: "8", lendingLimit: "4"}
            - {name: nvidia.com/gpu, nominalQuota: 16}
        - coveredResources: [memory]
          flavors:
          - name: mem
            resources:
            - {name: memory, nominalQuota: 1Ti}
        flavorFungibility: {whenCanBorrow: TryNextFlavor, preference: BorrowingOverPreemption}
        preemption:
          reclaimWithinCohort: Any
          borrowWithinCohort: {policy: LowerPriority, maxPriorityThreshold: 100}
          minimumRuntimeSeconds: 600
          borrowBackoffAfterReclaimSeconds: 300
          checkpointWindowSeconds: 900
          maxPreemptions: {count: 4, windowSeconds: 3600}
        fairSharing: {weight: "1"}
        admissionChecksStrategy:
          admissionChecks:
          - {name: prov, onFlavors: [h100]}
      """;

  static final String RF =
      """
      apiVersion: berth.dev/v1beta1
      kind: ResourceFlavor
      metadata: {name: h100}
      spec:
        nodeLabels: {nvidia.com/gpu.product: H100}
        nodeTaints: [{key: nvidia.com/gpu, value: present, effect: NoSchedule}]
        tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
        topologyName: dc1
      """;

  static final String WL =
      """
      apiVersion: berth.dev/v1beta1
      kind: Workload
      metadata: {name: w, namespace: ns}
      spec:
        queueName: q
        priorityClassRef: {group: berth.dev, kind: WorkloadPriorityClass, name: prod}
        podSets:
        - name: main
          count: 4
          minCount: 2
          template:
            spec:
              containers:
              - name: c
                image: busybox
                resources: {requests: {cpu: "1"}, limits: {cpu: "2"}}
          topologyRequest: {required: topology.berth.dev/rack}
      """;

  static final String JOB =
      """
      apiVersion: batch/v1
      kind: Job
      metadata:
        name: j
        namespace: ns
        labels: {berth.dev/queue-name: team-a}
        annotations: {berth.dev/job-min-parallelism: "2"}
      spec:
        parallelism: 4
        template:
          spec:
            restartPolicy: Never
            containers: [{name: c, image: busybox, resources: {requests: {cpu: "1"}}}]
      """;

  static final String JOBSET =
      """
      apiVersion: jobset.x-k8s.io/v1alpha2
      kind: JobSet
      metadata:
        name: js
        namespace: ns
        labels: {berth.dev/queue-name: team-a}
      spec:
        replicatedJobs:
        - name: workers
          replicas: 2
          template:
            spec:
              template:
                spec:
                  containers: [{name: c, image: busybox}]
      """;

  /** JOB with annotations on its pod template (a flow-style YAML map). */
  static String jobWithTemplateAnnotations(String annotations) {
    String template = "  template:\n    spec:\n";
    if (!JOB.contains(template)) {
      throw new IllegalStateException("JOB changed shape");
    }
    return JOB.replace(
        template, "  template:\n    metadata: {annotations: " + annotations + "}\n    spec:\n");
  }

  /** A LocalQueue with this fairSharing.weight. */
  static String weightedLocalQueue(String weight) {
    return """
        apiVersion: berth.dev/v1beta1
        kind: LocalQueue
        metadata: {name: q, namespace: ns}
        spec: {clusterQueue: cq, fairSharing: {weight: "%s"}}
        """
        .formatted(weight);
  }

  static Stream<Arguments> valid() {
    return Stream.of(
        Arguments.of("cluster queue", CQ),
        Arguments.of("resource flavor", RF),
        Arguments.of("workload", WL),
        Arguments.of("job", JOB),
        Arguments.of("jobset", JOBSET),
        Arguments.of(
            "job in rack slices of 2 pods on one host each",
            jobWithTemplateAnnotations(
                "{berth.dev/podset-required-topology: topology.berth.dev/rack,"
                    + " berth.dev/podset-slice-required-topology: kubernetes.io/hostname,"
                    + " berth.dev/podset-slice-size: \"2\"}")),
        Arguments.of(
            "workload ranked by index in two subgroups, in a podSet group",
            WL.replace(
                "{required: topology.berth.dev/rack}",
                "{required: topology.berth.dev/rack, podIndexLabel: batch.kubernetes.io/job-completion-index, subGroupIndexLabel: jobset.sigs.k8s.io/job-index, subGroupCount: 2, podSetGroupName: leader-and-workers}")),
        Arguments.of(
            "job in a podSet group",
            jobWithTemplateAnnotations(
                "{berth.dev/podset-required-topology: topology.berth.dev/rack,"
                    + " berth.dev/podset-group-name: leader-and-workers}")),
        Arguments.of(
            "job unconstrained",
            jobWithTemplateAnnotations("{berth.dev/podset-unconstrained-topology: \"true\"}")),
        Arguments.of(
            "unmanaged job with a bad annotation",
            JOB.replace("labels: {berth.dev/queue-name: team-a}", "labels: {}")
                .replace("\"2\"", "\"99\"")),
        Arguments.of(
            "topology",
            """
            apiVersion: berth.dev/v1beta1
            kind: Topology
            metadata: {name: t}
            spec: {levels: [{nodeLabel: block}, {nodeLabel: kubernetes.io/hostname}]}
            """),
        Arguments.of(
            "local queue naming a queue that does not exist yet",
            """
            apiVersion: berth.dev/v1beta1
            kind: LocalQueue
            metadata: {name: q, namespace: ns}
            spec: {clusterQueue: not-created-yet}
            """),
        Arguments.of(
            "cohort",
            """
            apiVersion: berth.dev/v1beta1
            kind: Cohort
            metadata: {name: ai}
            spec: {parentName: org}
            """),
        Arguments.of(
            "local queue with a weight, under admission fair sharing", weightedLocalQueue("1500m")),
        Arguments.of(
            "cluster queue with admission fair sharing",
            CQ.replace(
                "fairSharing: {weight: \"1\"}",
                "fairSharing: {weight: \"1\"}\n  admissionScope: {admissionMode: UsageBasedAdmissionFairSharing}")),
        Arguments.of(
            "cohort with a weight in thousandths",
            """
            apiVersion: berth.dev/v1beta1
            kind: Cohort
            metadata: {name: ai}
            spec: {parentName: org, fairSharing: {weight: 750m}}
            """),
        Arguments.of(
            "priority class",
            """
            apiVersion: berth.dev/v1beta1
            kind: WorkloadPriorityClass
            metadata: {name: p}
            value: 10
            """));
  }

  @ParameterizedTest(name = "valid {0}")
  @MethodSource("valid")
  void validObjectsHaveNoErrors(String name, String yaml) {
    assertThat(TestObjects.validate(yaml)).isEmpty();
  }

  static Stream<Arguments> invalid() {
    return Stream.of(
        // ClusterQueue
        Arguments.of(
            "resource in two groups",
            CQ.replace("[memory]", "[memory, cpu]")
                .replace(
                    "{name: memory, nominalQuota: 1Ti}",
                    "{name: memory, nominalQuota: 1Ti}\n      - {name: cpu, nominalQuota: 1}"),
            "spec.resourceGroups[1].coveredResources[1]"),
        Arguments.of(
            "flavor in two groups",
            CQ.replace("name: mem\n", "name: h100\n"),
            "spec.resourceGroups[1].flavors[0].name"),
        Arguments.of(
            "resources out of order",
            CQ.replace("[cpu, nvidia.com/gpu]", "[nvidia.com/gpu, cpu]"),
            "spec.resourceGroups[0].flavors[0].resources[0].name"),
        Arguments.of(
            "lending above nominal",
            CQ.replace("lendingLimit: \"4\"", "lendingLimit: \"97\""),
            "spec.resourceGroups[0].flavors[0].resources[0].lendingLimit"),
        Arguments.of(
            "limits without cohort",
            CQ.replace("  cohortName: ai\n", ""),
            "spec.resourceGroups[0].flavors[0].resources[0].borrowingLimit"),
        Arguments.of(
            "negative nominal",
            CQ.replace("nominalQuota: 16", "nominalQuota: -1"),
            "spec.resourceGroups[0].flavors[0].resources[1].nominalQuota"),
        Arguments.of(
            "bad selector operator",
            CQ.replace(
                "namespaceSelector: {}",
                "namespaceSelector: {matchExpressions: [{key: a, operator: Is, values: [b]}]}"),
            "spec.namespaceSelector.matchExpressions[0].operator"),
        Arguments.of(
            "In without values",
            CQ.replace(
                "namespaceSelector: {}",
                "namespaceSelector: {matchExpressions: [{key: a, operator: In}]}"),
            "spec.namespaceSelector.matchExpressions[0].values"),
        Arguments.of(
            "bad selector label value",
            CQ.replace("namespaceSelector: {}", "namespaceSelector: {matchLabels: {team: 'a b'}}"),
            "spec.namespaceSelector.matchLabels[team]"),
        Arguments.of(
            "preference without both TryNextFlavor",
            CQ.replace("whenCanBorrow: TryNextFlavor", "whenCanBorrow: MayStopSearch"),
            "spec.flavorFungibility.preference"),
        Arguments.of(
            "negative minimum runtime",
            CQ.replace("minimumRuntimeSeconds: 600", "minimumRuntimeSeconds: -1"),
            "spec.preemption.minimumRuntimeSeconds"),
        Arguments.of(
            "negative borrowing backoff after a reclaim",
            CQ.replace(
                "borrowBackoffAfterReclaimSeconds: 300", "borrowBackoffAfterReclaimSeconds: -5"),
            "spec.preemption.borrowBackoffAfterReclaimSeconds"),
        Arguments.of(
            "a negative checkpoint window",
            CQ.replace("checkpointWindowSeconds: 900", "checkpointWindowSeconds: -60"),
            "spec.preemption.checkpointWindowSeconds"),
        Arguments.of(
            "a preemption limit over a window of no time",
            CQ.replace("windowSeconds: 3600", "windowSeconds: 0"),
            "spec.preemption.maxPreemptions.windowSeconds"),
        Arguments.of(
            "a negative preemption limit",
            CQ.replace("{count: 4,", "{count: -1,"),
            "spec.preemption.maxPreemptions.count"),
        Arguments.of(
            "reclaim Never with borrowWithinCohort",
            CQ.replace("reclaimWithinCohort: Any", "reclaimWithinCohort: Never"),
            "spec.preemption.borrowWithinCohort.policy"),
        Arguments.of(
            "threshold without policy",
            CQ.replace("policy: LowerPriority, ", ""),
            "spec.preemption.borrowWithinCohort.maxPriorityThreshold"),
        Arguments.of(
            "negative weight",
            CQ.replace("weight: \"1\"", "weight: \"-1\""),
            "spec.fairSharing.weight"),
        Arguments.of(
            "weight finer than a thousandth",
            CQ.replace("weight: \"1\"", "weight: \"0.0005\""),
            "spec.fairSharing.weight"),
        Arguments.of(
            "local queue weight finer than a thousandth (it divides its usage in thousandths)",
            weightedLocalQueue("0.0005"),
            "spec.fairSharing.weight"),
        Arguments.of(
            "negative local queue weight", weightedLocalQueue("-1"), "spec.fairSharing.weight"),
        Arguments.of(
            "weight too large to count",
            CQ.replace("weight: \"1\"", "weight: \"2e9\""),
            "spec.fairSharing.weight"),
        Arguments.of(
            "check on unknown flavor",
            CQ.replace("onFlavors: [h100]", "onFlavors: [a100]"),
            "spec.admissionChecksStrategy.admissionChecks[0].onFlavors[0]"),
        Arguments.of(
            "cohort name not DNS",
            CQ.replace("cohortName: ai", "cohortName: AI"),
            "spec.cohortName"),
        // Cohort
        Arguments.of(
            "cohort is its own parent",
            """
            apiVersion: berth.dev/v1beta1
            kind: Cohort
            metadata: {name: ai}
            spec: {parentName: ai}
            """,
            "spec.parentName"),
        Arguments.of(
            "cohort weight finer than a thousandth",
            """
            apiVersion: berth.dev/v1beta1
            kind: Cohort
            metadata: {name: ai}
            spec: {parentName: org, fairSharing: {weight: "1.0001"}}
            """,
            "spec.fairSharing.weight"),
        // ResourceFlavor
        Arguments.of(
            "bad node label key",
            RF.replace("nvidia.com/gpu.product: H100", "'-bad/key': H100"),
            "spec.nodeLabels"),
        Arguments.of(
            "bad node label value",
            RF.replace("gpu.product: H100", "gpu.product: 'H 100'"),
            "spec.nodeLabels[nvidia.com/gpu.product]"),
        Arguments.of(
            "bad taint effect",
            RF.replace("value: present, effect: NoSchedule", "value: present, effect: Sometimes"),
            "spec.nodeTaints[0].effect"),
        Arguments.of(
            "duplicate taint",
            RF.replace(
                "effect: NoSchedule}]\n  tolerations",
                "effect: NoSchedule}, {key: nvidia.com/gpu, effect: NoSchedule}]\n  tolerations"),
            "spec.nodeTaints[1]"),
        Arguments.of(
            "exists toleration with value",
            RF.replace("operator: Exists,", "operator: Exists, value: x,"),
            "spec.tolerations[0].value"),
        Arguments.of(
            "equal toleration without key",
            RF.replace(
                "{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}",
                "{operator: Equal, value: x}"),
            "spec.tolerations[0].operator"),
        Arguments.of(
            "tolerationSeconds without NoExecute",
            RF.replace(
                "operator: Exists, effect: NoSchedule",
                "operator: Exists, effect: NoSchedule," + " tolerationSeconds: 5"),
            "spec.tolerations[0].effect"),
        Arguments.of(
            "topologyName without nodeLabels",
            RF.replace("  nodeLabels: {nvidia.com/gpu.product: H100}\n", ""),
            "spec.nodeLabels"),
        // Workload
        Arguments.of(
            "pods requested directly",
            WL.replace("requests: {cpu: \"1\"}", "requests: {cpu: \"1\", pods: \"1\"}"),
            "spec.podSets[0].template.spec.containers[0].resources.requests[pods]"),
        Arguments.of(
            "request above limit",
            WL.replace("limits: {cpu: \"2\"}", "limits: {cpu: 500m}"),
            "spec.podSets[0].template.spec.containers[0].resources.requests[cpu]"),
        Arguments.of(
            "minCount above count",
            WL.replace("minCount: 2", "minCount: 5"),
            "spec.podSets[0].minCount"),
        Arguments.of(
            "negative count", WL.replace("count: 4", "count: -1"), "spec.podSets[0].count"),
        Arguments.of(
            "no containers",
            WL.replace("        containers:", "        containers: []\n        initContainers:"),
            "spec.podSets[0].template.spec.containers"),
        Arguments.of(
            "priority class kind mismatch",
            WL.replace("kind: WorkloadPriorityClass", "kind: PriorityClass"),
            "spec.priorityClassRef.kind"),
        Arguments.of(
            "queue name not DNS", WL.replace("queueName: q", "queueName: Q_1"), "spec.queueName"),
        Arguments.of(
            "job slice size not a number",
            jobWithTemplateAnnotations(
                "{berth.dev/podset-required-topology: rack, berth.dev/podset-slice-required-topology: host,"
                    + " berth.dev/podset-slice-size: two}"),
            "spec.template.metadata.annotations[berth.dev/podset-slice-size]"),
        Arguments.of(
            "subgroups without their count",
            WL.replace(
                "{required: topology.berth.dev/rack}",
                "{required: rack, podIndexLabel: idx, subGroupIndexLabel: job}"),
            "spec.podSets[0].topologyRequest.subGroupCount"),
        Arguments.of(
            "subgroups without a pod index",
            WL.replace(
                "{required: topology.berth.dev/rack}",
                "{required: rack, subGroupIndexLabel: job, subGroupCount: 2}"),
            "spec.podSets[0].topologyRequest.podIndexLabel"),
        Arguments.of(
            "subgroups that do not divide the count",
            WL.replace(
                "{required: topology.berth.dev/rack}",
                "{required: rack, podIndexLabel: idx, subGroupIndexLabel: job, subGroupCount: 3}"),
            "spec.podSets[0].topologyRequest.subGroupCount"),
        Arguments.of(
            "pod index label not a label key",
            WL.replace(
                "{required: topology.berth.dev/rack}", "{required: rack, podIndexLabel: \"a b\"}"),
            "spec.podSets[0].topologyRequest.podIndexLabel"),
        Arguments.of(
            "job podSet group without a placement",
            jobWithTemplateAnnotations("{berth.dev/podset-group-name: g}"),
            "spec.template.metadata.annotations[berth.dev/podset-required-topology]"),
        Arguments.of(
            "job podSet group name not a DNS label",
            jobWithTemplateAnnotations(
                "{berth.dev/podset-required-topology: rack, berth.dev/podset-group-name: G_1}"),
            "spec.template.metadata.annotations[berth.dev/podset-group-name]"),
        Arguments.of(
            "two topology modes",
            WL.replace("{required: topology.berth.dev/rack}", "{required: rack, preferred: block}"),
            "spec.podSets[0].topologyRequest"),
        // Job and JobSet
        Arguments.of(
            "queue name not DNS",
            JOB.replace("queue-name: team-a", "queue-name: Team_A"),
            "metadata.labels[berth.dev/queue-name]"),
        Arguments.of(
            "min parallelism above parallelism",
            JOB.replace("\"2\"", "\"5\""),
            "metadata.annotations[berth.dev/job-min-parallelism]"),
        Arguments.of(
            "min parallelism not a number",
            JOB.replace("\"2\"", "two"),
            "metadata.annotations[berth.dev/job-min-parallelism]"),
        Arguments.of(
            "job requests pods",
            JOB.replace("requests: {cpu: \"1\"}", "requests: {pods: \"1\"}"),
            "spec.template.spec.containers[0].resources.requests[pods]"),
        Arguments.of(
            "jobset duplicate replicated job",
            JOBSET.replace(
                "spec:\n  replicatedJobs:\n",
                "spec:\n  replicatedJobs:\n  - {name: workers, template: {spec: {template: {spec:"
                    + " {containers: [{name: c, image: b}]}}}}}\n"),
            "spec.replicatedJobs[1].name"),
        Arguments.of(
            "jobset queue name not DNS",
            JOBSET.replace("queue-name: team-a", "queue-name: a..b"),
            "metadata.labels[berth.dev/queue-name]"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalid")
  void brokenRuleIsReportedAtItsField(String name, String yaml, String path) {
    List<FieldError> errors = TestObjects.validate(yaml);
    assertThat(errors).extracting(FieldError::path).contains(path);
  }
}
