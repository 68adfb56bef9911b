package dev.berth.api.v1beta1;

/** Names shared by the API, the operator and the webhooks. */
public final class Berth {
  public static final String GROUP = "berth.dev";
  public static final String VERSION = "v1beta1";
  public static final String API_VERSION = GROUP + "/" + VERSION;

  /** Label on a Job, JobSet or Pod that names the LocalQueue it is submitted to. */
  public static final String QUEUE_NAME_LABEL = "berth.dev/queue-name";

  /** Label that names the WorkloadPriorityClass; wins over the pod's priorityClassName. */
  public static final String PRIORITY_CLASS_LABEL = "berth.dev/priority-class";

  /**
   * Annotation on a Job, the operator's alone: it has asked the Job controller to acknowledge a
   * suspension (docs/reliability.md), and gives an evicted Job's quota back only once that is done.
   */
  public static final String STOP_REQUESTED_ANNOTATION = "berth.dev/stop-requested";

  /** Annotation on a Job: the smallest parallelism it accepts (partial admission). */
  public static final String JOB_MIN_PARALLELISM_ANNOTATION = "berth.dev/job-min-parallelism";

  /**
   * Label on a Job or JobSet: the most seconds its Workload may run admitted, summed over requeues
   * (Workload spec.maximumExecutionTimeSeconds); then it is evicted and deactivated.
   */
  public static final String MAX_EXEC_TIME_LABEL = "berth.dev/max-exec-time-seconds";

  /** Annotation the operator puts on a partially admitted Job: the parallelism it asked for. */
  public static final String ORIGINAL_PARALLELISM_ANNOTATION = "berth.dev/original-parallelism";

  /**
   * Annotation on a Job or JobSet (set by the mutating webhook at create, at sub-second resolution)
   * and on its Workload (copied by the operator): when it was submitted. It orders workloads
   * created in the same second (creationTimestamp has 1 s resolution).
   */
  public static final String SUBMITTED_AT_ANNOTATION = "berth.dev/submitted-at";

  /**
   * On a Workload: when its job last wrote a checkpoint (RFC 3339). A workload that checkpointed
   * within its ClusterQueue's {@code preemption.checkpointWindowSeconds} loses little on a restart,
   * so it goes before others of its priority when victims are chosen.
   */
  public static final String LAST_CHECKPOINT_TIME_ANNOTATION = "berth.dev/last-checkpoint-time";

  /** Label on a Workload created for a Job or JobSet: the owner's UID, for lookups by owner. */
  public static final String OWNER_UID_LABEL = "berth.dev/owner-uid";

  /** Label on a Workload created for a Job or JobSet: the owner's kind (Job or JobSet). */
  public static final String OWNER_KIND_LABEL = "berth.dev/owner-kind";

  /** Label the operator puts on an admitted topology-aware podSet's pod template: its name. */
  public static final String PODSET_LABEL = "berth.dev/podset";

  /** Label next to {@link #PODSET_LABEL}: its Workload's UID (a name may not fit a label value). */
  public static final String WORKLOAD_LABEL = "berth.dev/workload";

  /** Scheduling gate that holds a topology-aware pod until the operator assigns its domain. */
  public static final String TOPOLOGY_SCHEDULING_GATE = "berth.dev/topology";

  /**
   * Scheduling gate that holds a plain Pod (one with {@link #QUEUE_NAME_LABEL}) until its Workload
   * is admitted; only the operator removes it, with the flavors' node labels and tolerations.
   */
  public static final String ADMISSION_SCHEDULING_GATE = "berth.dev/admission";

  /**
   * Label the pod webhook puts on a plain Pod it gated at creation ({@code "true"}): the operator
   * runs such pods under a Workload, and only them, so that turning the pod integration on never
   * touches pods created before it.
   */
  public static final String MANAGED_LABEL = "berth.dev/managed";

  /**
   * Label on the plain Pods of a pod group (Kueue's pod-group-name): the group, and the name of its
   * one Workload. The group is admitted all or nothing once it has as many pods as {@link
   * #POD_GROUP_TOTAL_COUNT_ANNOTATION} says.
   */
  public static final String POD_GROUP_NAME_LABEL = "berth.dev/pod-group-name";

  /** Annotation on each pod of a pod group: how many pods the group has (a positive integer). */
  public static final String POD_GROUP_TOTAL_COUNT_ANNOTATION = "berth.dev/pod-group-total-count";

  /**
   * Annotation on a pod of a pod group: its role, the podSet it is counted in (a DNS label). A
   * group whose pods differ (a LeaderWorkerSet's leader and workers) has a podSet per role; without
   * it, a pod is in podSet {@code main}. Set by the pod webhook on a LeaderWorkerSet's pods.
   */
  public static final String POD_GROUP_ROLE_ANNOTATION = "berth.dev/pod-group-role";

  /**
   * Annotation on a pod of a pod group, {@code "false"}: the group will not replace its failed
   * pods, so it is finished (Failed) once none of its pods runs.
   */
  public static final String RETRIABLE_IN_GROUP_ANNOTATION = "berth.dev/retriable-in-group";

  /** The field manager and identity the operator writes with. */
  public static final String OPERATOR_FIELD_MANAGER = "berth-operator";

  /** Finalizer that keeps a ResourceFlavor or ClusterQueue while something uses it. */
  public static final String RESOURCE_IN_USE_FINALIZER = "berth.dev/resource-in-use";

  public static final String PODSET_REQUIRED_TOPOLOGY = "berth.dev/podset-required-topology";
  public static final String PODSET_PREFERRED_TOPOLOGY = "berth.dev/podset-preferred-topology";
  public static final String PODSET_UNCONSTRAINED_TOPOLOGY =
      "berth.dev/podset-unconstrained-topology";

  /**
   * Pod-template annotation: the level every slice of a podSet must share (with the slice size).
   */
  public static final String PODSET_SLICE_REQUIRED_TOPOLOGY =
      "berth.dev/podset-slice-required-topology";

  /** Pod-template annotation: pods per slice; the podSet's count must be a multiple of it. */
  public static final String PODSET_SLICE_SIZE = "berth.dev/podset-slice-size";

  /** PodSets whose templates name the same group are placed on one flavor and in one domain. */
  public static final String PODSET_GROUP_NAME = "berth.dev/podset-group-name";

  /** RFC 1123 DNS subdomain, the shape of most object names. */
  public static final String DNS_SUBDOMAIN =
      "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";

  /**
   * A resource name (no backslashes, so CEL rules can embed it): cpu, memory, pods, nvidia.com/gpu,
   * nvidia.com/mig-1g.10gb.
   */
  public static final String RESOURCE_NAME =
      "^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$";

  /** A label key: an optional DNS-subdomain prefix and a name of at most 63 characters. */
  public static final String LABEL_KEY =
      "^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$";

  /** RFC 1123 DNS label. */
  public static final String DNS_LABEL = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$";

  /** A Kubernetes quantity such as 500m, 16Gi or 8. */
  public static final String QUANTITY =
      "^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$";

  private Berth() {}
}
