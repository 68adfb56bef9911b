package dev.berth.e2e.webhook;

import java.util.LinkedHashMap;
import java.util.Map;

/** Valid objects of each kind, as an admin or a team would write them. */
final class ValidSamples {
  private ValidSamples() {}

  static Map<String, String> all(String ns) {
    Map<String, String> samples = new LinkedHashMap<>();
    samples.put(
        "resource flavor with taints, tolerations and topology",
        """
        apiVersion: berth.dev/v1beta1
        kind: ResourceFlavor
        metadata: {name: valid-h100}
        spec:
          nodeLabels: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3, topology.berth.dev/block: b1}
          nodeTaints:
          - {key: nvidia.com/gpu, value: present, effect: NoSchedule}
          - {key: nvidia.com/gpu, value: present, effect: NoExecute}
          tolerations:
          - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
          - {key: spot, operator: Equal, value: "true", effect: NoExecute, tolerationSeconds: 60}
          - {operator: Exists}
          topologyName: valid-dc1
        """);
    samples.put(
        "plain resource flavor",
        """
        apiVersion: berth.dev/v1beta1
        kind: ResourceFlavor
        metadata: {name: valid-default}
        """);
    samples.put(
        "topology",
        """
        apiVersion: berth.dev/v1beta1
        kind: Topology
        metadata: {name: valid-dc1}
        spec:
          levels:
          - nodeLabel: topology.berth.dev/block
          - nodeLabel: topology.berth.dev/rack
          - nodeLabel: kubernetes.io/hostname
        """);
    samples.put(
        "cohort with quota and a parent",
        """
        apiVersion: berth.dev/v1beta1
        kind: Cohort
        metadata: {name: valid-ai}
        spec:
          parentName: valid-org
          resourceGroups:
          - coveredResources: [nvidia.com/gpu]
            flavors:
            - name: valid-h100
              resources:
              - {name: nvidia.com/gpu, nominalQuota: 8, lendingLimit: 4}
          fairSharing: {weight: "2"}
        """);
    samples.put(
        "cluster queue using every field",
        """
        apiVersion: berth.dev/v1beta1
        kind: ClusterQueue
        metadata: {name: valid-team-a}
        spec:
          cohortName: valid-ai
          queueingStrategy: StrictFIFO
          namespaceSelector:
            matchLabels: {team: a}
            matchExpressions:
            - {key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system]}
            - {key: tier, operator: Exists}
          resourceGroups:
          - coveredResources: [cpu, memory, nvidia.com/gpu]
            flavors:
            - name: valid-h100
              resources:
              - {name: cpu, nominalQuota: "96"}
              - {name: memory, nominalQuota: 1Ti}
              - {name: nvidia.com/gpu, nominalQuota: 16, borrowingLimit: 8, lendingLimit: 4}
            - name: valid-a100
              resources:
              - {name: cpu, nominalQuota: 500m}
              - {name: memory, nominalQuota: 64Gi}
              - {name: nvidia.com/gpu, nominalQuota: 0}
          - coveredResources: [pods]
            flavors:
            - name: valid-default
              resources:
              - {name: pods, nominalQuota: 100}
          flavorFungibility:
            whenCanBorrow: TryNextFlavor
            whenCanPreempt: TryNextFlavor
            preference: BorrowingOverPreemption
          preemption:
            withinClusterQueue: LowerOrNewerEqualPriority
            reclaimWithinCohort: Any
            borrowWithinCohort: {policy: LowerPriority, maxPriorityThreshold: 100}
          stopPolicy: Hold
          fairSharing: {weight: "0"}
          admissionChecksStrategy:
            admissionChecks:
            - {name: provisioning, onFlavors: [valid-h100]}
            - {name: budget}
        """);
    samples.put(
        "minimal cluster queue",
        """
        apiVersion: berth.dev/v1beta1
        kind: ClusterQueue
        metadata: {name: valid-minimal}
        spec: {}
        """);
    samples.put(
        "local queue for a cluster queue not created yet",
        """
        apiVersion: berth.dev/v1beta1
        kind: LocalQueue
        metadata: {name: valid-lq, namespace: %s}
        spec: {clusterQueue: valid-not-yet-created, fairSharing: {weight: "1"}}
        """
            .formatted(ns));
    samples.put(
        "priority class",
        """
        apiVersion: berth.dev/v1beta1
        kind: WorkloadPriorityClass
        metadata: {name: valid-production}
        value: 1000
        description: Production training runs
        """);
    samples.put(
        "workload with two podSets and partial admission",
        """
        apiVersion: berth.dev/v1beta1
        kind: Workload
        metadata: {name: valid-train, namespace: %s}
        spec:
          queueName: valid-lq
          priority: 100
          priorityClassRef: {group: berth.dev, kind: WorkloadPriorityClass, name: valid-production}
          podSets:
          - name: driver
            count: 1
            template:
              spec:
                containers:
                - {name: driver, image: trainer:1.0, resources: {requests: {cpu: "2"}}}
          - name: workers
            count: 4
            minCount: 2
            template:
              spec:
                initContainers:
                - {name: fetch, image: fetch:1.0}
                containers:
                - name: trainer
                  image: trainer:1.0
                  resources:
                    requests: {cpu: "8", memory: 64Gi, nvidia.com/gpu: "8"}
                    limits: {memory: 64Gi, nvidia.com/gpu: "8"}
            topologyRequest:
              required: topology.berth.dev/rack
              podSetSliceRequiredTopology: kubernetes.io/hostname
              podSetSliceSize: 2
        """
            .formatted(ns));
    samples.put(
        "workload of a leader and two ranked groups of workers, placed as one podSet group",
        """
        apiVersion: berth.dev/v1beta1
        kind: Workload
        metadata: {name: valid-grouped, namespace: %s}
        spec:
          queueName: valid-lq
          podSets:
          - name: leader
            count: 1
            template:
              spec:
                containers:
                - {name: leader, image: server:1.0, resources: {requests: {cpu: "2"}}}
            topologyRequest:
              required: topology.berth.dev/rack
              podSetGroupName: replica-0
          - name: workers
            count: 4
            template:
              spec:
                containers:
                - {name: worker, image: server:1.0, resources: {requests: {cpu: "2"}}}
            topologyRequest:
              required: topology.berth.dev/rack
              podIndexLabel: batch.kubernetes.io/job-completion-index
              subGroupIndexLabel: jobset.sigs.k8s.io/job-index
              subGroupCount: 2
              podSetGroupName: replica-0
        """
            .formatted(ns));
    samples.put(
        "workload with a PriorityClass",
        """
        apiVersion: berth.dev/v1beta1
        kind: Workload
        metadata: {name: valid-pc, namespace: %s}
        spec:
          priorityClassRef: {group: scheduling.k8s.io, kind: PriorityClass, name: high}
          podSets:
          - {name: main, count: 0, template: {spec: {containers: [{name: c, image: c:1}]}}}
        """
            .formatted(ns));
    samples.put(
        "managed job with min parallelism",
        """
        apiVersion: batch/v1
        kind: Job
        metadata:
          name: valid-job
          namespace: %s
          labels: {berth.dev/queue-name: valid-lq, berth.dev/priority-class: valid-production}
          annotations: {berth.dev/job-min-parallelism: "2"}
        spec:
          parallelism: 4
          completions: 8
          template:
            spec:
              restartPolicy: Never
              containers:
              - {name: main, image: busybox, resources: {requests: {cpu: "1", nvidia.com/gpu: "1"}, limits: {nvidia.com/gpu: "1"}}}
        """
            .formatted(ns));
    samples.put(
        "unmanaged job",
        """
        apiVersion: batch/v1
        kind: Job
        metadata: {name: valid-unmanaged, namespace: %s}
        spec:
          template:
            spec:
              restartPolicy: Never
              containers: [{name: main, image: busybox}]
        """
            .formatted(ns));
    samples.put(
        "managed jobset",
        """
        apiVersion: jobset.x-k8s.io/v1alpha2
        kind: JobSet
        metadata:
          name: valid-jobset
          namespace: %s
          labels: {berth.dev/queue-name: valid-lq}
        spec:
          replicatedJobs:
          - name: driver
            replicas: 1
            template: {spec: {template: {spec: {containers: [{name: d, image: d:1}]}}}}
          - name: workers
            replicas: 4
            template:
              spec:
                parallelism: 2
                completions: 2
                template: {spec: {containers: [{name: w, image: w:1, resources: {requests: {cpu: "4"}}}]}}
        """
            .formatted(ns));
    return samples;
  }
}
