package dev.berth.e2e;

/** Valid objects of each kind, as an admin would write them. */
final class Yaml {
  private Yaml() {}

  static final String H100_FLAVOR =
      """
      apiVersion: berth.dev/v1beta1
      kind: ResourceFlavor
      metadata:
        name: h100
      spec:
        nodeLabels:
          nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3
          topology.berth.dev/block: b1
        nodeTaints:
        - key: nvidia.com/gpu
          value: present
          effect: NoSchedule
        tolerations:
        - key: nvidia.com/gpu
          operator: Exists
          effect: NoSchedule
        topologyName: dc1
        platformReservation:
          nvidia.com/gpu: 8
          memory: 64Gi
      """;

  static final String TOPOLOGY =
      """
      apiVersion: berth.dev/v1beta1
      kind: Topology
      metadata:
        name: dc1
      spec:
        levels:
        - nodeLabel: topology.berth.dev/block
        - nodeLabel: topology.berth.dev/rack
        - nodeLabel: kubernetes.io/hostname
      """;

  static final String COHORT =
      """
      apiVersion: berth.dev/v1beta1
      kind: Cohort
      metadata:
        name: ai
      spec:
        parentName: org
        resourceGroups:
        - coveredResources: [nvidia.com/gpu]
          flavors:
          - name: h100
            resources:
            - name: nvidia.com/gpu
              nominalQuota: 8
              lendingLimit: 4
        fairSharing:
          weight: "2"
      """;

  static final String CLUSTER_QUEUE =
      """
      apiVersion: berth.dev/v1beta1
      kind: ClusterQueue
      metadata:
        name: team-a
      spec:
        cohortName: ai
        queueingStrategy: BestEffortFIFO
        namespaceSelector: {}
        resourceGroups:
        - coveredResources: [cpu, memory, nvidia.com/gpu]
          flavors:
          - name: h100
            resources:
            - name: cpu
              nominalQuota: "96"
            - name: memory
              nominalQuota: 1Ti
            - name: nvidia.com/gpu
              nominalQuota: 16
              borrowingLimit: 8
              lendingLimit: 4
          - name: a100
            resources:
            - name: cpu
              nominalQuota: 500m
            - name: memory
              nominalQuota: 64Gi
            - name: nvidia.com/gpu
              nominalQuota: 0
        flavorFungibility:
          whenCanBorrow: TryNextFlavor
          whenCanPreempt: TryNextFlavor
          preference: BorrowingOverPreemption
        preemption:
          withinClusterQueue: LowerPriority
          reclaimWithinCohort: Any
          borrowWithinCohort:
            policy: LowerPriority
            maxPriorityThreshold: 100
        stopPolicy: None
        fairSharing:
          weight: "1"
      """;

  static final String LOCAL_QUEUE =
      """
      apiVersion: berth.dev/v1beta1
      kind: LocalQueue
      metadata:
        name: team-a-queue
        namespace: %s
      spec:
        clusterQueue: team-a
      """;

  static final String PRIORITY_CLASS =
      """
      apiVersion: berth.dev/v1beta1
      kind: WorkloadPriorityClass
      metadata:
        name: production
      value: 1000
      description: Production training runs
      """;

  static final String WORKLOAD =
      """
      apiVersion: berth.dev/v1beta1
      kind: Workload
      metadata:
        name: train
        namespace: %s
      spec:
        queueName: team-a-queue
        priority: 100
        priorityClassRef:
          group: berth.dev
          kind: WorkloadPriorityClass
          name: production
        podSets:
        - name: workers
          count: 4
          minCount: 2
          template:
            spec:
              restartPolicy: Never
              containers:
              - name: trainer
                image: trainer:1.0
                resources:
                  requests:
                    cpu: "8"
                    nvidia.com/gpu: "8"
          topologyRequest:
            required: topology.berth.dev/rack
      """;
}
