package dev.berth.kubectl.convert;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** One test per mapping from Kueue's YAML to Berth's, and per thing that cannot be carried over. */
class KueueConverterTest {
  private static final KueueConverter CONVERTER = new KueueConverter();

  private static KueueConverter.Result convert(String yaml) throws IOException {
    return CONVERTER.convert(
        "in.yaml",
        YamlDocuments.read(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8))));
  }

  /** One Kueue object of {@code kueue.x-k8s.io/version}: its kind, name and spec (or the rest). */
  private static KueueConverter.Result kueue(String version, String kind, String name, String body)
      throws IOException {
    return convert(
        "apiVersion: kueue.x-k8s.io/%s\nkind: %s\nmetadata: {name: %s}\n%s"
            .formatted(version, kind, name, body.stripIndent()));
  }

  private static JsonNode only(KueueConverter.Result r) {
    assertThat(r.documents()).hasSize(1);
    return r.documents().get(0);
  }

  private static List<String> lines(KueueConverter.Result r) {
    return r.findings().stream().map(Finding::toString).toList();
  }

  @Test
  void aV1beta1ClusterQueueTakesV1beta2sNames() throws IOException {
    KueueConverter.Result r =
        kueue(
            "v1beta1",
            "ClusterQueue",
            "team-a",
            """
            spec:
              cohort: research
              namespaceSelector: {matchLabels: {team: a}}
              admissionChecks: [prov, approval]
              flavorFungibility: {whenCanBorrow: Borrow, whenCanPreempt: Preempt}
            """);
    JsonNode cq = only(r);
    assertThat(cq.path("apiVersion").asText()).isEqualTo("berth.dev/v1beta1");
    JsonNode spec = cq.path("spec");
    assertThat(spec.has("cohort")).isFalse();
    assertThat(spec.path("cohortName").asText()).isEqualTo("research");
    assertThat(spec.has("admissionChecks")).isFalse();
    assertThat(spec.path("admissionChecksStrategy").path("admissionChecks").toString())
        .isEqualTo("[{\"name\":\"prov\"},{\"name\":\"approval\"}]");
    // Kueue's own conversion: Borrow and Preempt both become MayStopSearch.
    assertThat(spec.path("flavorFungibility").toString())
        .isEqualTo("{\"whenCanBorrow\":\"MayStopSearch\",\"whenCanPreempt\":\"MayStopSearch\"}");
    assertThat(r.findings()).isEmpty();
  }

  @Test
  void renamedFieldsKeepTheirPlaceAndV1beta2sNameWinsOverV1beta1s() throws IOException {
    KueueConverter.Result r =
        convert(
            """
            apiVersion: kueue.x-k8s.io/v1beta1
            kind: ClusterQueue
            metadata: {name: a}
            spec: {queueingStrategy: StrictFIFO, cohort: x, admissionChecks: [c], stopPolicy: None}
            ---
            apiVersion: kueue.x-k8s.io/v1beta1
            kind: ClusterQueue
            metadata: {name: b}
            spec: {cohort: old, cohortName: new}
            """);
    assertThat(r.documents().get(0).path("spec").toString())
        .isEqualTo(
            "{\"queueingStrategy\":\"StrictFIFO\",\"cohortName\":\"x\","
                + "\"admissionChecksStrategy\":{\"admissionChecks\":[{\"name\":\"c\"}]},"
                + "\"stopPolicy\":\"None\"}");
    assertThat(r.documents().get(1).path("spec").toString()).isEqualTo("{\"cohortName\":\"new\"}");
    assertThat(lines(r))
        .containsExactly(
            "in.yaml: clusterqueue/b: spec.cohort: dropped: spec.cohortName is set too, and is"
                + " kept");
  }

  @Test
  void tryNextFlavorAndV1beta2sNamesAreKeptAsWritten() throws IOException {
    JsonNode spec =
        only(kueue(
                "v1beta2",
                "ClusterQueue",
                "team-a",
                """
                    spec:
                      cohortName: research
                      flavorFungibility: {whenCanBorrow: TryNextFlavor, whenCanPreempt: TryNextFlavor}
                    """))
            .path("spec");
    assertThat(spec.path("cohortName").asText()).isEqualTo("research");
    assertThat(spec.path("flavorFungibility").path("whenCanBorrow").asText())
        .isEqualTo("TryNextFlavor");
    assertThat(spec.path("flavorFungibility").path("whenCanPreempt").asText())
        .isEqualTo("TryNextFlavor");
  }

  @Test
  void admissionChecksBesideAStrategyAreDroppedAndSaidSo() throws IOException {
    KueueConverter.Result r =
        kueue(
            "v1beta1",
            "ClusterQueue",
            "team-a",
            """
            spec:
              admissionChecks: [old]
              admissionChecksStrategy: {admissionChecks: [{name: new}]}
            """);
    assertThat(only(r).path("spec").path("admissionChecksStrategy").toString()).contains("new");
    assertThat(lines(r))
        .containsExactly(
            "in.yaml: clusterqueue/team-a: spec.admissionChecks: dropped:"
                + " spec.admissionChecksStrategy is set too; Kueue refuses both, Berth keeps the"
                + " strategy");
  }

  @Test
  void aCheckOnFlavorsTheClusterQueueDoesNotHaveIsLeftOutAsItNeverApplied() throws IOException {
    KueueConverter.Result r =
        kueue(
            "v1beta1",
            "ClusterQueue",
            "cq",
            """
            spec:
              resourceGroups:
              - coveredResources: [cpu]
                flavors: [{name: on-demand, resources: [{name: cpu, nominalQuota: 1}]}]
              admissionChecksStrategy:
                admissionChecks:
                - {name: a, onFlavors: [default-flavor]}
                - {name: b, onFlavors: [spot, on-demand]}
                - {name: c}
            """);
    assertThat(only(r).path("spec").path("admissionChecksStrategy").toString())
        .isEqualTo(
            "{\"admissionChecks\":[{\"name\":\"b\",\"onFlavors\":[\"on-demand\"]},{\"name\":\"c\"}]}");
    assertThat(lines(r))
        .containsExactly(
            "in.yaml: clusterqueue/cq: spec.admissionChecksStrategy.admissionChecks[1].onFlavors:"
                + " dropped: [spot] are not a flavor of this ClusterQueue: check b never applied"
                + " there",
            "in.yaml: clusterqueue/cq: spec.admissionChecksStrategy.admissionChecks[0]: dropped:"
                + " its onFlavors [default-flavor] are not a flavor of this ClusterQueue: check a"
                + " never applied there");
  }

  @Test
  void anEmptyNamespaceSelectorIsKeptWithAWarning() throws IOException {
    KueueConverter.Result r =
        kueue(
            "v1beta2",
            "ClusterQueue",
            "cq",
            """
            spec: {namespaceSelector: {}}
            """);
    assertThat(only(r).path("spec").path("namespaceSelector").isEmpty()).isTrue();
    assertThat(r.findings())
        .singleElement()
        .satisfies(
            f -> {
              assertThat(f.kind()).isEqualTo(Finding.Kind.NOTE);
              assertThat(f.path()).isEqualTo("spec.namespaceSelector");
              assertThat(f.message()).contains("every namespace");
            });
  }

  @Test
  void aV1beta1WorkloadsPriorityClassNameAndSourceBecomeAPriorityClassRef() throws IOException {
    KueueConverter.Result r =
        convert(
            """
            apiVersion: kueue.x-k8s.io/v1beta1
            kind: Workload
            metadata: {name: w1, namespace: team-a}
            spec:
              queueName: user-queue
              priorityClassName: high
              priorityClassSource: kueue.x-k8s.io/workloadpriorityclass
              podSets: [{name: main, count: 1, template: {spec: {containers: [{name: c}]}}}]
            ---
            apiVersion: kueue.x-k8s.io/v1beta1
            kind: Workload
            metadata: {name: w2, namespace: team-a}
            spec:
              priorityClassName: system-critical
              priorityClassSource: scheduling.k8s.io/priorityclass
            ---
            apiVersion: kueue.x-k8s.io/v1beta1
            kind: Workload
            metadata: {name: w3, namespace: team-a}
            spec: {priorityClassName: orphan}
            ---
            apiVersion: kueue.x-k8s.io/v1beta2
            kind: Workload
            metadata: {name: w4, namespace: team-a}
            spec:
              priorityClassRef: {group: kueue.x-k8s.io, kind: WorkloadPriorityClass, name: high}
            """);
    List<JsonNode> docs = r.documents();
    assertThat(docs.get(0).path("spec").path("priorityClassRef").toString())
        .isEqualTo(
            "{\"group\":\"berth.dev\",\"kind\":\"WorkloadPriorityClass\",\"name\":\"high\"}");
    assertThat(docs.get(0).path("spec").has("priorityClassName")).isFalse();
    assertThat(docs.get(0).path("spec").has("priorityClassSource")).isFalse();
    assertThat(docs.get(1).path("spec").path("priorityClassRef").toString())
        .isEqualTo(
            "{\"group\":\"scheduling.k8s.io\",\"kind\":\"PriorityClass\",\"name\":\"system-critical\"}");
    assertThat(docs.get(2).path("spec").has("priorityClassRef")).isFalse();
    assertThat(docs.get(3).path("spec").path("priorityClassRef").path("group").asText())
        .isEqualTo("berth.dev");
    assertThat(lines(r))
        .containsExactly(
            "in.yaml: workload/team-a/w3: spec.priorityClassName: dropped: priorityClassSource is"
                + " not set, so it is not known which kind of priority class orphan is");
  }

  @Test
  void kueuesProvisioningCheckBecomesBerthsAndItsParametersToo() throws IOException {
    JsonNode spec =
        only(kueue(
                "v1beta2",
                "AdmissionCheck",
                "prov",
                """
                    spec:
                      controllerName: kueue.x-k8s.io/provisioning-request
                      parameters: {apiGroup: kueue.x-k8s.io, kind: ProvisioningRequestConfig, name: cfg}
                    """))
            .path("spec");
    assertThat(spec.path("controllerName").asText()).isEqualTo("berth.dev/provisioning-request");
    assertThat(spec.path("parameters").path("apiGroup").asText()).isEqualTo("berth.dev");
  }

  @Test
  void aV1beta1AdmissionChecksRetryDelayIsDroppedWithItsPath() throws IOException {
    KueueConverter.Result r =
        kueue(
            "v1beta1",
            "AdmissionCheck",
            "prov",
            """
            spec: {controllerName: kueue.x-k8s.io/provisioning-request, retryDelayMinutes: 15}
            """);
    assertThat(only(r).path("spec").has("retryDelayMinutes")).isFalse();
    assertThat(lines(r))
        .containsExactly(
            "in.yaml: admissioncheck/prov: spec.retryDelayMinutes: dropped: Berth has no such"
                + " field");
  }

  @Test
  void aFreeFormControllerNameIsKeptAndSaidToNeedItsOwnController() throws IOException {
    KueueConverter.Result r =
        kueue(
            "v1beta2",
            "AdmissionCheck",
            "prov-test",
            """
            spec: {controllerName: ProvisioningRequestController}
            """);
    assertThat(only(r).path("spec").path("controllerName").asText())
        .isEqualTo("ProvisioningRequestController");
    assertThat(r.findings()).singleElement().extracting(Finding::kind).isEqualTo(Finding.Kind.NOTE);
  }

  @Test
  void multiKueueIsNotConvertedAndSaysWhy() throws IOException {
    KueueConverter.Result r =
        convert(
            """
            apiVersion: kueue.x-k8s.io/v1beta2
            kind: AdmissionCheck
            metadata: {name: mk}
            spec: {controllerName: kueue.x-k8s.io/multikueue}
            ---
            apiVersion: kueue.x-k8s.io/v1beta2
            kind: MultiKueueConfig
            metadata: {name: cfg}
            spec: {clusters: [w1]}
            ---
            apiVersion: kueue.x-k8s.io/v1beta1
            kind: MultiKueueCluster
            metadata: {name: w1}
            ---
            apiVersion: kueue.x-k8s.io/v1beta2
            kind: SomethingNew
            metadata: {name: x}
            """);
    assertThat(r.documents()).isEmpty();
    assertThat(lines(r))
        .containsExactly(
            "in.yaml: admissioncheck/mk: not converted: a MultiKueue check (controllerName"
                + " kueue.x-k8s.io/multikueue): Berth has no MultiKueue",
            "in.yaml: multikueueconfig/cfg: not converted: Berth has no MultiKueue: it admits"
                + " workloads in its own cluster only",
            "in.yaml: multikueuecluster/w1: not converted: Berth has no MultiKueue: it admits"
                + " workloads in its own cluster only",
            "in.yaml: somethingnew/x: not converted: Berth has no SomethingNew");
  }

  @Test
  void aCohortsV1alpha1ParentIsItsParentName() throws IOException {
    JsonNode spec =
        only(kueue(
                "v1alpha1",
                "Cohort",
                "research",
                """
                    spec: {parent: org}
                    """))
            .path("spec");
    assertThat(spec.path("parentName").asText()).isEqualTo("org");
    assertThat(spec.has("parent")).isFalse();
  }

  @Test
  void everyOtherBerthKindChangesOnlyItsGroup() throws IOException {
    KueueConverter.Result r =
        convert(
            """
            apiVersion: kueue.x-k8s.io/v1beta1
            kind: ResourceFlavor
            metadata: {name: spot}
            spec:
              nodeLabels: {instance-type: spot}
              nodeTaints: [{key: spot, value: "true", effect: NoSchedule}]
              topologyName: default
            ---
            apiVersion: kueue.x-k8s.io/v1beta2
            kind: LocalQueue
            metadata: {name: user-queue, namespace: default}
            spec: {clusterQueue: cluster-queue}
            ---
            apiVersion: kueue.x-k8s.io/v1beta1
            kind: WorkloadPriorityClass
            metadata: {name: high}
            value: 1000
            description: urgent
            ---
            apiVersion: kueue.x-k8s.io/v1beta2
            kind: Topology
            metadata: {name: default}
            spec: {levels: [{nodeLabel: cloud.example.com/block}, {nodeLabel: kubernetes.io/hostname}]}
            ---
            apiVersion: kueue.x-k8s.io/v1beta2
            kind: ProvisioningRequestConfig
            metadata: {name: cfg}
            spec:
              provisioningClassName: check-capacity.autoscaling.x-k8s.io
              managedResources: [nvidia.com/gpu]
              retryStrategy: {backoffLimitCount: 2, backoffBaseSeconds: 0, backoffMaxSeconds: 1800}
            """);
    assertThat(r.findings()).isEmpty();
    assertThat(r.documents()).hasSize(5);
    assertThat(r.documents())
        .allSatisfy(d -> assertThat(d.path("apiVersion").asText()).isEqualTo("berth.dev/v1beta1"));
    assertThat(r.documents().get(2).path("value").asInt()).isEqualTo(1000);
    assertThat(r.documents().get(4).path("spec").path("retryStrategy").toString())
        .isEqualTo("{\"backoffLimitCount\":2,\"backoffBaseSeconds\":0,\"backoffMaxSeconds\":1800}");
  }

  @Test
  void fieldsAndValuesBerthDoesNotHaveAreDroppedWithTheirPaths() throws IOException {
    KueueConverter.Result r =
        convert(
            """
            apiVersion: kueue.x-k8s.io/v1beta2
            kind: ClusterQueue
            metadata: {name: cq}
            spec:
              admissionScope: {admissionMode: UsageBasedAdmissionFairSharing}
              concurrentAdmissionPolicy: {}
              queueingStrategy: SomethingElse
              resourceGroups:
              - coveredResources: [cpu]
                flavors: [{name: f, resources: [{name: cpu, nominalQuota: 1, futureField: x}]}]
            ---
            apiVersion: kueue.x-k8s.io/v1beta2
            kind: WorkloadPriorityClass
            metadata: {name: high}
            value: 10
            somethingElse: 1
            """);
    // Admission fair sharing is Berth's too (issue 47): kept as it is.
    assertThat(r.documents().get(0).at("/spec/admissionScope/admissionMode").asText())
        .isEqualTo("UsageBasedAdmissionFairSharing");
    assertThat(r.documents().get(0).path("spec").has("concurrentAdmissionPolicy")).isFalse();
    assertThat(r.documents().get(0).path("spec").has("queueingStrategy")).isFalse();
    assertThat(r.documents().get(0).toString()).doesNotContain("futureField");
    assertThat(r.findings())
        .extracting(f -> f.object() + " " + f.path() + " " + f.kind())
        .containsExactlyInAnyOrder(
            "clusterqueue/cq spec.concurrentAdmissionPolicy DROPPED",
            "clusterqueue/cq spec.queueingStrategy DROPPED",
            "clusterqueue/cq spec.resourceGroups[0].flavors[0].resources[0].futureField DROPPED",
            "workloadpriorityclass/high somethingElse DROPPED");
    assertThat(lines(r))
        .contains(
            "in.yaml: clusterqueue/cq: spec.queueingStrategy: dropped: SomethingElse is not one of"
                + " Berth's values [\"BestEffortFIFO\",\"StrictFIFO\"]; Berth's default applies");
  }

  @Test
  void statusAndTheServersMetadataAreLeftBehind() throws IOException {
    KueueConverter.Result r =
        convert(
            """
            apiVersion: kueue.x-k8s.io/v1beta2
            kind: LocalQueue
            metadata:
              name: q
              namespace: ns
              uid: 0f6c
              resourceVersion: "42"
              generation: 3
              creationTimestamp: "2026-01-01T00:00:00Z"
              managedFields: [{manager: kubectl}]
              labels: {team: a}
              annotations:
                kubectl.kubernetes.io/last-applied-configuration: '{"apiVersion":"kueue.x-k8s.io/v1beta2"}'
            spec: {clusterQueue: cq}
            status: {pendingWorkloads: 3}
            """);
    assertThat(only(r).path("metadata").toString())
        .isEqualTo("{\"name\":\"q\",\"namespace\":\"ns\",\"labels\":{\"team\":\"a\"}}");
    assertThat(only(r).has("status")).isFalse();
    assertThat(lines(r))
        .containsExactly(
            "in.yaml: localqueue/ns/q: status: dropped: written by Berth's operator, not applied");
  }

  @Test
  void aJobsKueueLabelsAndAnnotationsBecomeBerths() throws IOException {
    KueueConverter.Result r =
        convert(
            """
            apiVersion: batch/v1
            kind: Job
            metadata:
              generateName: sample-job-
              namespace: default
              labels:
                kueue.x-k8s.io/queue-name: user-queue
                kueue.x-k8s.io/priority-class: high
                kueue.x-k8s.io/max-exec-time-seconds: "600"
                app: demo
              annotations:
                kueue.x-k8s.io/job-min-parallelism: "5"
                kueue.x-k8s.io/elastic-job: "true"
                provreq.kueue.x-k8s.io/maxRunDurationSeconds: "600"
            spec:
              parallelism: 20
              template:
                metadata:
                  annotations: {kueue.x-k8s.io/podset-required-topology: cloud.example.com/block}
                spec: {containers: [{name: c, image: busybox}], restartPolicy: Never}
            """);
    JsonNode job = only(r);
    assertThat(job.path("metadata").path("labels").toString())
        .isEqualTo(
            "{\"berth.dev/queue-name\":\"user-queue\",\"berth.dev/priority-class\":\"high\","
                + "\"berth.dev/max-exec-time-seconds\":\"600\",\"app\":\"demo\"}");
    assertThat(job.path("metadata").path("annotations").toString())
        .isEqualTo("{\"berth.dev/job-min-parallelism\":\"5\"}");
    assertThat(job.path("spec").path("template").path("metadata").path("annotations").toString())
        .isEqualTo("{\"berth.dev/podset-required-topology\":\"cloud.example.com/block\"}");
    assertThat(r.findings())
        .extracting(f -> f.path() + " " + f.kind())
        .containsExactly(
            "metadata.annotations[kueue.x-k8s.io/elastic-job] DROPPED",
            "metadata.annotations[provreq.kueue.x-k8s.io/maxRunDurationSeconds] DROPPED");
    assertThat(r.findings().get(0).object()).isEqualTo("job/default/sample-job-");
  }

  @Test
  void aKueueKeyUsedAsTheWrongKindOfMetadataIsDroppedNamingTheRightOne() throws IOException {
    KueueConverter.Result r =
        convert(
            """
            apiVersion: batch/v1
            kind: Job
            metadata:
              name: j
              annotations: {kueue.x-k8s.io/priority-class: high}
            """);
    assertThat(lines(r))
        .containsExactly(
            "in.yaml: job/j: metadata.annotations[kueue.x-k8s.io/priority-class]: dropped: Berth"
                + " reads berth.dev/priority-class as a label, not as an annotation");
  }

  @Test
  void theQueueNameAnnotationKueueStillReadsBecomesTheLabel() throws IOException {
    KueueConverter.Result r =
        convert(
            """
            apiVersion: batch/v1
            kind: Job
            metadata:
              name: j
              annotations: {kueue.x-k8s.io/queue-name: user-queue}
            """);
    assertThat(only(r).path("metadata").toString())
        .isEqualTo("{\"name\":\"j\",\"labels\":{\"berth.dev/queue-name\":\"user-queue\"}}");
    assertThat(lines(r))
        .containsExactly(
            "in.yaml: job/j: metadata.labels[berth.dev/queue-name]: rewritten: from the"
                + " annotation kueue.x-k8s.io/queue-name: Berth reads the queue name from the label"
                + " only");
  }

  @Test
  void slicesWithNoPlacementAreUnconstrainedAsKueuePlacesThem() throws IOException {
    KueueConverter.Result r =
        convert(
            """
            apiVersion: jobset.x-k8s.io/v1alpha2
            kind: JobSet
            metadata: {name: js, labels: {kueue.x-k8s.io/queue-name: user-queue}}
            spec:
              replicatedJobs:
              - name: workers
                template:
                  spec:
                    parallelism: 4
                    template:
                      metadata:
                        annotations:
                          kueue.x-k8s.io/podset-slice-required-topology: cloud.example.com/rack
                          kueue.x-k8s.io/podset-slice-size: "2"
            """);
    JsonNode annotations =
        only(r)
            .path("spec")
            .path("replicatedJobs")
            .get(0)
            .path("template")
            .path("spec")
            .path("template")
            .path("metadata")
            .path("annotations");
    assertThat(annotations.toString())
        .isEqualTo(
            "{\"berth.dev/podset-slice-required-topology\":\"cloud.example.com/rack\","
                + "\"berth.dev/podset-slice-size\":\"2\","
                + "\"berth.dev/podset-unconstrained-topology\":\"true\"}");
    assertThat(r.findings())
        .singleElement()
        .satisfies(
            f -> {
              assertThat(f.kind()).isEqualTo(Finding.Kind.REWRITTEN);
              assertThat(f.path())
                  .isEqualTo(
                      "spec.replicatedJobs[0].template.spec.template.metadata.annotations"
                          + "[berth.dev/podset-unconstrained-topology]");
            });
  }

  @Test
  void aCronJobsJobTemplateLabelsAreConverted() throws IOException {
    JsonNode cron =
        only(
            convert(
                """
                apiVersion: batch/v1
                kind: CronJob
                metadata: {name: c}
                spec:
                  schedule: "*/1 * * * *"
                  jobTemplate:
                    metadata: {labels: {kueue.x-k8s.io/queue-name: user-queue}}
                """));
    assertThat(cron.path("spec").path("jobTemplate").path("metadata").path("labels").toString())
        .isEqualTo("{\"berth.dev/queue-name\":\"user-queue\"}");
  }

  @Test
  void kindsBerthDoesNotQueueAreLeftOutWhenTheyNameAKueueQueue() throws IOException {
    KueueConverter.Result r =
        convert(
            """
            apiVersion: argoproj.io/v1alpha1
            kind: Workflow
            metadata: {generateName: wf-}
            spec: {podMetadata: {labels: {kueue.x-k8s.io/queue-name: user-queue}}}
            ---
            apiVersion: v1
            kind: ConfigMap
            metadata: {name: code}
            data: {a: b}
            """);
    assertThat(r.documents()).extracting(d -> d.path("kind").asText()).containsExactly("ConfigMap");
    assertThat(r.findings())
        .extracting(f -> f.object() + " " + f.kind())
        .containsExactly("workflow/wf- NOT_SUPPORTED");
    assertThat(r.findings().get(0).message()).contains("would run unqueued");
  }

  @Test
  void theTrainingOperatorsMpiJobIsQueuedAndTheMpiOperatorsIsLeftOut() throws IOException {
    KueueConverter.Result r =
        convert(
            """
            apiVersion: kubeflow.org/v1
            kind: MPIJob
            metadata: {name: v1, labels: {kueue.x-k8s.io/queue-name: user-queue}}
            spec: {mpiReplicaSpecs: {}}
            ---
            apiVersion: kubeflow.org/v2beta1
            kind: MPIJob
            metadata: {name: v2, labels: {kueue.x-k8s.io/queue-name: user-queue}}
            spec: {mpiReplicaSpecs: {}}
            """);
    assertThat(r.documents())
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.at("/metadata/name").asText()).isEqualTo("v1");
              assertThat(d.at("/metadata/labels").toString())
                  .isEqualTo("{\"berth.dev/queue-name\":\"user-queue\"}");
            });
    assertThat(r.findings())
        .extracting(f -> f.object() + " " + f.kind())
        .containsExactly("mpijob/v2 NOT_SUPPORTED");
    assertThat(r.findings().get(0).message()).contains("kubeflow.org/v1").contains("v2beta1");
  }

  @Test
  void aPodGroupKeepsItsQueueGroupAndCountUnderBerthsNames() throws IOException {
    KueueConverter.Result r =
        convert(
            """
            apiVersion: v1
            kind: Pod
            metadata:
              generateName: worker-
              labels: {kueue.x-k8s.io/queue-name: user-queue, kueue.x-k8s.io/pod-group-name: g}
              annotations:
                kueue.x-k8s.io/pod-group-total-count: "2"
                kueue.x-k8s.io/retriable-in-group: "false"
            spec:
              containers: [{name: c, image: busybox}]
            """);
    var meta = r.documents().get(0).path("metadata");
    assertThat(meta.path("labels").path("berth.dev/queue-name").asText()).isEqualTo("user-queue");
    assertThat(meta.path("labels").path("berth.dev/pod-group-name").asText()).isEqualTo("g");
    assertThat(meta.path("annotations").path("berth.dev/pod-group-total-count").asText())
        .isEqualTo("2");
    assertThat(meta.path("annotations").path("berth.dev/retriable-in-group").asText())
        .isEqualTo("false");
  }

  @Test
  void whatStillNamesKueueAfterConversionIsReported() throws IOException {
    KueueConverter.Result r =
        convert(
            """
            apiVersion: rbac.authorization.k8s.io/v1
            kind: ClusterRole
            metadata: {name: reader}
            rules: [{apiGroups: [visibility.kueue.x-k8s.io], resources: [clusterqueues], verbs: [get]}]
            """);
    assertThat(only(r).path("rules").get(0).path("apiGroups").get(0).asText())
        .isEqualTo("visibility.kueue.x-k8s.io");
    assertThat(lines(r))
        .containsExactly(
            "in.yaml: clusterrole/reader: rules[0].apiGroups[0]: note: visibility.kueue.x-k8s.io"
                + " still names Kueue's API group; convert leaves it as written");
  }

  @Test
  void kubectlGetsListIsReadItemByItem() throws IOException {
    KueueConverter.Result r =
        convert(
            """
            apiVersion: v1
            kind: List
            items:
            - apiVersion: kueue.x-k8s.io/v1beta1
              kind: ClusterQueue
              metadata: {name: a, uid: 1d2c, resourceVersion: "7"}
              spec: {cohort: research}
            - apiVersion: kueue.x-k8s.io/v1beta1
              kind: LocalQueue
              metadata: {name: q, namespace: ns}
              spec: {clusterQueue: a}
            metadata: {resourceVersion: ""}
            """);
    assertThat(r.documents())
        .extracting(d -> d.path("kind").asText() + " " + d.path("apiVersion").asText())
        .containsExactly("ClusterQueue berth.dev/v1beta1", "LocalQueue berth.dev/v1beta1");
    assertThat(r.documents().get(0).path("spec").path("cohortName").asText()).isEqualTo("research");
    assertThat(r.documents().get(0).path("metadata").toString()).isEqualTo("{\"name\":\"a\"}");
  }

  @Test
  void aDocumentThatIsNoObjectIsReported() throws IOException {
    KueueConverter.Result r = convert("just: text\n---\n- a list\n");
    assertThat(r.documents()).isEmpty();
    assertThat(lines(r))
        .containsExactly(
            "in.yaml: document 1: not converted: not a Kubernetes object (no kind)",
            "in.yaml: document 2: not converted: not a Kubernetes object (no kind)");
  }

  @Test
  void yamlRoundTripsValuesThatLookLikeOtherTypes() throws IOException {
    String yaml =
        """
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: m, labels: {n: "600", b: "true", z: "0755", nul: "null"}}
        data:
          script: |
            echo one
            echo two
        """;
    List<JsonNode> docs = YamlDocuments.read(new ByteArrayInputStream(yaml.getBytes()));
    String written = YamlDocuments.write(docs);
    assertThat(written).startsWith("---\n");
    assertThat(YamlDocuments.read(new ByteArrayInputStream(written.getBytes()))).isEqualTo(docs);
  }

  @Test
  void everyCrdOfTheChartHasItsSchemaBundled() throws IOException {
    try (Stream<Path> files = Files.list(Path.of("..", "helm", "berth", "crds"))) {
      List<String> plurals =
          files.map(p -> p.getFileName().toString().replace(".berth.dev-v1.yml", "")).toList();
      assertThat(BerthSchemas.PLURALS.values()).containsExactlyInAnyOrderElementsOf(plurals);
    }
    BerthSchemas schemas = BerthSchemas.bundled();
    BerthSchemas.PLURALS.keySet().forEach(kind -> assertThat(schemas.has(kind)).as(kind).isTrue());
  }
}
