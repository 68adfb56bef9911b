package dev.berth.operator.integration.jobset;

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
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A JobSet as one podSet per replicatedJob, of replicas × min(parallelism, completions) pods, all
 * admitted together; the flavor of each podSet goes into its replicatedJob's pod template.
 */
public final class JobSetAdapter implements Integration<JobSet> {
  /** The label the JobSet controller puts on a JobSet's child Jobs (and their pods). */
  public static final String JOBSET_NAME_LABEL = "jobset.sigs.k8s.io/jobset-name";

  /** A JobSet's child Jobs, as the JobSet controller made them. */
  @FunctionalInterface
  public interface ChildJobs {
    List<Job> of(JobSet jobSet);
  }

  private final ChildJobs children;
  private final ChildJobStops stops = new ChildJobStops();

  public JobSetAdapter(ChildJobs children) {
    this.children = children;
  }

  @Override
  public String kind() {
    return "JobSet";
  }

  @Override
  public String workloadName(JobSet jobSet) {
    return WorkloadNames.of("jobset", jobSet);
  }

  static int podCount(JobSet.ReplicatedJob rj) {
    var spec = rj.template.getSpec();
    int parallelism = spec.getParallelism() == null ? 1 : spec.getParallelism();
    int perJob =
        spec.getCompletions() == null ? parallelism : Math.min(parallelism, spec.getCompletions());
    return (rj.replicas == null ? 1 : rj.replicas) * perJob;
  }

  @Override
  public Workload newWorkload(JobSet jobSet, PriorityResolver priorities) {
    PodTemplateSpec first = jobSet.getSpec().replicatedJobs.get(0).template.getSpec().getTemplate();
    Workload workload =
        WorkloadNames.newWorkload(
            jobSet,
            "jobset.x-k8s.io/v1alpha2",
            kind(),
            workloadName(jobSet),
            podSets(jobSet),
            priorities.resolve(jobSet.getMetadata().getLabels(), first));
    workload.getSpec().maximumExecutionTimeSeconds =
        WorkloadNames.maxExecTime(jobSet.getMetadata().getLabels());
    return workload;
  }

  @Override
  public List<PodSet> podSets(JobSet jobSet) {
    List<PodSet> podSets = new ArrayList<>();
    for (JobSet.ReplicatedJob rj : jobSet.getSpec().replicatedJobs) {
      PodSet podSet =
          new PodSet(rj.name, podCount(rj), Copies.deep(rj.template.getSpec().getTemplate()));
      podSet.topologyRequest = TopologyAnnotations.request(rj.template.getSpec().getTemplate());
      String mode = rj.template.getSpec().getCompletionMode();
      if (mode == null || "Indexed".equals(mode)) {
        // JobSet makes its Jobs Indexed unless told otherwise; each pod carries its Job's index.
        podSet.topologyRequest =
            TopologyAnnotations.ranked(
                podSet.topologyRequest,
                TopologyAnnotations.JOB_COMPLETION_INDEX,
                TopologyAnnotations.JOBSET_JOB_INDEX,
                rj.replicas == null ? 1 : rj.replicas);
      }
      podSets.add(podSet);
    }
    return podSets;
  }

  /**
   * Not one Kubeflow Trainer made for a TrainJob (its controller): that one runs under its
   * TrainJob's Workload, even where the TrainJob's {@code spec.labels} gave it a queue label.
   */
  @Override
  public boolean manages(JobSet jobSet) {
    var owners = jobSet.getMetadata().getOwnerReferences();
    return owners == null
        || owners.stream()
            .noneMatch(
                o ->
                    Boolean.TRUE.equals(o.getController())
                        && "TrainJob".equals(o.getKind())
                        && o.getApiVersion() != null
                        && o.getApiVersion().startsWith("trainer.kubeflow.org/"));
  }

  @Override
  public boolean isSuspended(JobSet jobSet) {
    return Boolean.TRUE.equals(jobSet.getSpec().suspend);
  }

  @Override
  public JobSet suspended(JobSet jobSet) {
    JobSet copy = Copies.deep(jobSet);
    copy.getSpec().suspend = true;
    return copy;
  }

  @Override
  public JobSet admitted(JobSet jobSet, Workload workload, FlavorLookup flavors) {
    JobSet copy = Copies.deep(jobSet);
    for (JobSet.ReplicatedJob rj : copy.getSpec().replicatedJobs) {
      Optional<PodSetAssignment> assignment =
          workload.getStatus().admission.podSetAssignments.stream()
              .filter(a -> rj.name.equals(a.name))
              .findFirst();
      assignment.ifPresent(
          a ->
              PodTemplates.inject(
                  rj.template.getSpec().getTemplate(),
                  a,
                  workload.getMetadata().getUid(),
                  flavors));
      PodTemplates.applyCheckUpdates(rj.template.getSpec().getTemplate(), workload, rj.name);
    }
    copy.getSpec().suspend = false;
    return copy;
  }

  @Override
  public JobSet restored(JobSet jobSet, Workload workload) {
    JobSet copy = suspended(jobSet);
    for (JobSet.ReplicatedJob rj : copy.getSpec().replicatedJobs) {
      workload.getSpec().podSets.stream()
          .filter(ps -> rj.name.equals(ps.name))
          .findFirst()
          .ifPresent(ps -> PodTemplates.restore(rj.template.getSpec().getTemplate(), ps.template));
    }
    return copy;
  }

  /**
   * The JobSet controller's condition that holds and changed last ({@code Completed}, {@code
   * Failed}, {@code Suspended}, {@code StartupPolicyCompleted}, ...), else the default.
   */
  @Override
  public String ownerStatus(JobSet jobSet) {
    return OwnerStatuses.latestHolding(
            jobSet.getStatus() == null ? null : jobSet.getStatus().conditions)
        .orElseGet(() -> Integration.super.ownerStatus(jobSet));
  }

  @Override
  public Optional<Finish> finished(JobSet jobSet) {
    if (jobSet.getStatus() == null || jobSet.getStatus().conditions == null) {
      return Optional.empty();
    }
    for (Map<String, Object> c : jobSet.getStatus().conditions) {
      if (!"True".equals(c.get("status"))) {
        continue;
      }
      Object message = c.get("message");
      if ("Completed".equals(c.get("type"))) {
        return Optional.of(
            new Finish(true, message == null ? "JobSet completed" : message.toString()));
      }
      if ("Failed".equals(c.get("type"))) {
        return Optional.of(
            new Finish(false, message == null ? "JobSet failed" : message.toString()));
      }
    }
    return Optional.empty();
  }

  /**
   * Pods that still run, terminating ones included, counted from the child Jobs. Not from the
   * JobSet's status: its {@code active} counts child Jobs with a pod that is not being deleted, so
   * it drops to 0 as soon as a suspended JobSet's pods are told to stop, while they still hold
   * their nodes' GPUs. An evicted JobSet's quota is released only once they have stopped.
   */
  @Override
  public int activePods(JobSet jobSet) {
    return activePods(jobSet, children.of(jobSet));
  }

  /** {@link #activePods(JobSet)}, counted from {@code childJobs} (read live). */
  @Override
  public int activePods(JobSet jobSet, List<Job> childJobs) {
    return stops.activePods(owned(jobSet, childJobs));
  }

  private static List<Job> owned(JobSet jobSet, List<Job> childJobs) {
    String uid = jobSet.getMetadata().getUid();
    return childJobs.stream()
        .filter(
            child ->
                child.getMetadata().getOwnerReferences() != null
                    && child.getMetadata().getOwnerReferences().stream()
                        .anyMatch(o -> o.getUid() != null && o.getUid().equals(uid)))
        .toList();
  }

  /** The stop request, per child Job ({@link ChildJobStops}). */
  @Override
  public boolean awaitsStopRequest(JobSet jobSet) {
    return stops.awaitsStopRequest(owned(jobSet, children.of(jobSet)));
  }

  @Override
  public Optional<Job> stopRequest(JobSet jobSet, List<Pod> pods) {
    return stops.stopRequest(owned(jobSet, children.of(jobSet)), pods);
  }

  @Override
  public boolean suspensionAcknowledged(JobSet jobSet, List<Job> childJobs) {
    return stops.suspensionAcknowledged(owned(jobSet, childJobs));
  }

  /** The JobSet controller's label on its child Jobs and their pods. */
  @Override
  public Map<String, String> childJobLabels(JobSet jobSet) {
    return Map.of(JOBSET_NAME_LABEL, jobSet.getMetadata().getName());
  }

  @Override
  public Map<String, String> podLabels(JobSet jobSet) {
    return childJobLabels(jobSet);
  }

  /**
   * A pod of the JobSet's (listed live, by its name: one of an earlier JobSet of that name still
   * stopping holds its node too) that its Job controller has not counted yet, or a child Job with
   * one.
   */
  @Override
  public boolean hasPodsToCount(JobSet jobSet, List<Pod> pods) {
    return hasPodsToCount(jobSet) || stops.hasPodsToCount(pods);
  }

  /**
   * From the JobSet's status, as Kueue reads it: per replicatedJob, its child Jobs that are ready
   * (all their pods ready or succeeded) or succeeded, times the pods of one such Job. A child Job
   * only partly ready counts for nothing, so the sum reaches the admitted count only when every pod
   * is ready.
   */
  @Override
  public int readyPods(JobSet jobSet) {
    if (jobSet.getStatus() == null || jobSet.getStatus().replicatedJobsStatus == null) {
      return 0;
    }
    int pods = 0;
    for (Map<String, Object> rjs : jobSet.getStatus().replicatedJobsStatus) {
      JobSet.ReplicatedJob rj =
          jobSet.getSpec().replicatedJobs.stream()
              .filter(r -> r.name.equals(rjs.get("name")))
              .findFirst()
              .orElse(null);
      if (rj != null) {
        int perJob = podCount(rj) / Math.max(1, rj.replicas == null ? 1 : rj.replicas);
        pods += (number(rjs.get("ready")) + number(rjs.get("succeeded"))) * perJob;
      }
    }
    return pods;
  }

  private static int number(Object value) {
    return value instanceof Number n ? n.intValue() : 0;
  }
}
