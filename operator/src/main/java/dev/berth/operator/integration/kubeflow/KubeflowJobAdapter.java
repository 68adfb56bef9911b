package dev.berth.operator.integration.kubeflow;

import dev.berth.api.v1beta1.PodSet;
import dev.berth.api.v1beta1.PodSetAssignment;
import dev.berth.api.v1beta1.Workload;
import dev.berth.operator.integration.Integration;
import dev.berth.operator.integration.OwnerStatuses;
import dev.berth.operator.integration.PodTemplates;
import dev.berth.operator.integration.PriorityResolver;
import dev.berth.operator.integration.TopologyAnnotations;
import dev.berth.operator.integration.WorkloadNames;
import dev.berth.operator.kube.Copies;
import dev.berth.webhook.integration.Framework;
import dev.berth.webhook.validation.KubeflowJobValidator;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.client.CustomResource;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * A training operator v1 job (PyTorchJob, MPIJob) as one podSet per replica type, in the kind's
 * order (Master, Worker; Launcher, Worker), named after the type in lower case, of {@code replicas}
 * pods each (1 when unset), admitted together; suspended through {@code spec.runPolicy.suspend},
 * and the flavor of each podSet injected into its replica's pod template. The training operator
 * deletes a suspended job's pods itself; it marks the job Succeeded or Failed in its conditions,
 * and Running once its pods run, which is when the Workload is PodsReady (as Kueue reads it). What
 * differs between the kinds is only their names ({@link PyTorchJobAdapter}, {@link MPIJobAdapter}).
 */
public abstract class KubeflowJobAdapter<
        T extends CustomResource<? extends KubeflowJob.Spec, KubeflowJob.Status>>
    implements Integration<T> {
  /** The training operator's label on a job's pods: the job's name. */
  public static final String JOB_NAME_LABEL = "training.kubeflow.org/job-name";

  /** The training operator's label on a job's pods: the controller that made them. */
  public static final String OPERATOR_NAME_LABEL = "training.kubeflow.org/operator-name";

  /** The training operator's label on a job's pods: its index within its replica type. */
  static final String REPLICA_INDEX_LABEL = "training.kubeflow.org/replica-index";

  private final String kind;
  private final String workloadPrefix;
  private final List<String> replicaTypes;
  private final String operatorName;

  /**
   * @param framework the kind (its replica types in podSet order are the webhook's, {@link
   *     KubeflowJobValidator#replicaTypes})
   * @param operatorName the training operator's controller of the kind (its pods' {@link
   *     #OPERATOR_NAME_LABEL})
   */
  protected KubeflowJobAdapter(Framework framework, String operatorName) {
    this.kind = framework.kind();
    this.workloadPrefix = framework.webhookName();
    this.replicaTypes = KubeflowJobValidator.replicaTypes(framework);
    this.operatorName = operatorName;
  }

  @Override
  public String kind() {
    return kind;
  }

  /** The controller of the training operator that runs the kind, e.g. pytorchjob-controller. */
  public String operatorName() {
    return operatorName;
  }

  @Override
  public String workloadName(T job) {
    return WorkloadNames.of(workloadPrefix, job);
  }

  /** Its replica types that have a spec, in podSet order. */
  private List<String> presentTypes(T job) {
    Map<String, KubeflowJob.ReplicaSpec> specs = job.getSpec().replicaSpecs();
    return replicaTypes.stream().filter(t -> specs != null && specs.get(t) != null).toList();
  }

  private static String podSetName(String replicaType) {
    return replicaType.toLowerCase(Locale.ROOT);
  }

  private static int count(KubeflowJob.ReplicaSpec spec) {
    return spec.replicas == null ? 1 : spec.replicas;
  }

  @Override
  public List<PodSet> podSets(T job) {
    List<PodSet> podSets = new ArrayList<>();
    for (String type : presentTypes(job)) {
      KubeflowJob.ReplicaSpec spec = job.getSpec().replicaSpecs().get(type);
      PodSet podSet = new PodSet(podSetName(type), count(spec), Copies.deep(spec.template));
      podSet.topologyRequest =
          TopologyAnnotations.ranked(
              TopologyAnnotations.request(spec.template), REPLICA_INDEX_LABEL, null, 1);
      podSets.add(podSet);
    }
    return podSets;
  }

  @Override
  public Workload newWorkload(T job, PriorityResolver priorities) {
    Workload workload =
        WorkloadNames.newWorkload(
            job,
            job.getApiVersion(),
            kind(),
            workloadName(job),
            podSets(job),
            priorities.resolve(job.getMetadata().getLabels(), priorityTemplate(job)));
    workload.getSpec().maximumExecutionTimeSeconds =
        WorkloadNames.maxExecTime(job.getMetadata().getLabels());
    return workload;
  }

  /**
   * Where the pods' priority class is read when no {@code berth.dev/priority-class} label names a
   * WorkloadPriorityClass, in Kueue's order: {@code runPolicy.schedulingPolicy.priorityClass}, else
   * the first replica template (in podSet order) that names one.
   */
  PodTemplateSpec priorityTemplate(T job) {
    KubeflowJob.RunPolicy policy = job.getSpec().runPolicy;
    Object scheduling = policy == null ? null : policy.getOther().get("schedulingPolicy");
    if (scheduling instanceof Map<?, ?> map
        && map.get("priorityClass") instanceof String name
        && !name.isEmpty()) {
      return new PodTemplateSpecBuilder()
          .withNewSpec()
          .withPriorityClassName(name)
          .endSpec()
          .build();
    }
    for (String type : presentTypes(job)) {
      PodTemplateSpec template = job.getSpec().replicaSpecs().get(type).template;
      if (template != null
          && template.getSpec() != null
          && template.getSpec().getPriorityClassName() != null
          && !template.getSpec().getPriorityClassName().isEmpty()) {
        return template;
      }
    }
    return null;
  }

  @Override
  public boolean isSuspended(T job) {
    KubeflowJob.RunPolicy policy = job.getSpec().runPolicy;
    return policy != null && Boolean.TRUE.equals(policy.suspend);
  }

  private T withSuspend(T job, boolean suspend) {
    T copy = Copies.deep(job);
    if (copy.getSpec().runPolicy == null) {
      copy.getSpec().runPolicy = new KubeflowJob.RunPolicy();
    }
    copy.getSpec().runPolicy.suspend = suspend;
    return copy;
  }

  @Override
  public T suspended(T job) {
    return withSuspend(job, true);
  }

  @Override
  public T admitted(T job, Workload workload, FlavorLookup flavors) {
    T copy = withSuspend(job, false);
    for (String type : presentTypes(copy)) {
      PodTemplateSpec template = copy.getSpec().replicaSpecs().get(type).template;
      Optional<PodSetAssignment> assignment =
          workload.getStatus().admission.podSetAssignments.stream()
              .filter(a -> podSetName(type).equals(a.name))
              .findFirst();
      assignment.ifPresent(
          a -> PodTemplates.inject(template, a, workload.getMetadata().getUid(), flavors));
      PodTemplates.applyCheckUpdates(template, workload, podSetName(type));
    }
    return copy;
  }

  @Override
  public T restored(T job, Workload workload) {
    T copy = suspended(job);
    for (String type : presentTypes(copy)) {
      PodTemplateSpec template = copy.getSpec().replicaSpecs().get(type).template;
      workload.getSpec().podSets.stream()
          .filter(ps -> podSetName(type).equals(ps.name))
          .findFirst()
          .ifPresent(ps -> PodTemplates.restore(template, ps.template));
    }
    return copy;
  }

  /**
   * The training operator's condition that holds and changed last ({@code Created}, {@code
   * Running}, {@code Restarting}, {@code Suspended}, {@code Succeeded}, {@code Failed}), else the
   * default.
   */
  @Override
  public String ownerStatus(T job) {
    return OwnerStatuses.latestHolding(conditions(job))
        .orElseGet(() -> Integration.super.ownerStatus(job));
  }

  /** Succeeded or Failed, from the training operator's conditions. */
  @Override
  public Optional<Finish> finished(T job) {
    for (Map<String, Object> c : conditions(job)) {
      if (!"True".equals(c.get("status"))) {
        continue;
      }
      Object message = c.get("message");
      if ("Succeeded".equals(c.get("type"))) {
        return Optional.of(
            new Finish(true, message == null ? kind + " succeeded" : message.toString()));
      }
      if ("Failed".equals(c.get("type"))) {
        return Optional.of(
            new Finish(false, message == null ? kind + " failed" : message.toString()));
      }
    }
    return Optional.empty();
  }

  private static List<Map<String, Object>> conditions(CustomResource<?, KubeflowJob.Status> job) {
    return job.getStatus() == null || job.getStatus().conditions == null
        ? List.of()
        : job.getStatus().conditions;
  }

  private static boolean conditionTrue(CustomResource<?, KubeflowJob.Status> job, String type) {
    return conditions(job).stream()
        .anyMatch(c -> type.equals(c.get("type")) && "True".equals(c.get("status")));
  }

  /**
   * The pods its status counts as active. The training operator zeroes these counts as soon as it
   * deletes a suspended job's pods, while they may still be stopping: an evicted job's quota goes
   * back only once a live list by {@link #podLabels} finds none left ({@link #hasPodsToCount}).
   */
  @Override
  public int activePods(T job) {
    if (job.getStatus() == null || job.getStatus().replicaStatuses == null) {
      return 0;
    }
    int active = 0;
    for (Map<String, Object> counts : job.getStatus().replicaStatuses.values()) {
      if (counts != null && counts.get("active") instanceof Number n) {
        active += n.intValue();
      }
    }
    return active;
  }

  /** The training operator's labels on the job's pods. */
  @Override
  public Map<String, String> podLabels(T job) {
    return Map.of(JOB_NAME_LABEL, job.getMetadata().getName(), OPERATOR_NAME_LABEL, operatorName);
  }

  /**
   * Active in its status, or a pod of its name (listed live: one of an earlier job of that name
   * still stopping holds its node too) that has not ended, terminating ones included.
   */
  @Override
  public boolean hasPodsToCount(T job, List<Pod> pods) {
    return hasPodsToCount(job) || pods.stream().anyMatch(KubeflowJobAdapter::holdsNode);
  }

  private static boolean holdsNode(Pod pod) {
    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
    return !"Succeeded".equals(phase) && !"Failed".equals(phase);
  }

  /**
   * As Kueue reads it: every pod counts as ready once the training operator says the job is Running
   * (for a PyTorchJob, its master runs; for an MPIJob, its launcher) or Succeeded.
   */
  @Override
  public int readyPods(T job) {
    if (!conditionTrue(job, "Running") && !conditionTrue(job, "Succeeded")) {
      return 0;
    }
    return podSets(job).stream().mapToInt(ps -> ps.count).sum();
  }
}
