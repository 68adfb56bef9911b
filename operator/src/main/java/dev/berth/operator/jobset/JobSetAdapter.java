package dev.berth.operator.jobset;

import dev.berth.api.v1beta1.PodSet;
import dev.berth.api.v1beta1.PodSetAssignment;
import dev.berth.api.v1beta1.Workload;
import dev.berth.operator.job.Integration;
import dev.berth.operator.job.PodTemplates;
import dev.berth.operator.job.PriorityResolver;
import dev.berth.operator.job.TopologyAnnotations;
import dev.berth.operator.job.WorkloadNames;
import dev.berth.operator.kube.Copies;
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
      podSets.add(podSet);
    }
    return podSets;
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
    int pods = 0;
    for (Job child : children.of(jobSet)) {
      boolean owned =
          child.getMetadata().getOwnerReferences() != null
              && child.getMetadata().getOwnerReferences().stream()
                  .anyMatch(o -> o.getUid().equals(jobSet.getMetadata().getUid()));
      if (owned && child.getStatus() != null) {
        pods += count(child.getStatus().getActive()) + count(child.getStatus().getTerminating());
      }
    }
    return pods;
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

  private static int count(Integer pods) {
    return pods == null ? 0 : pods;
  }
}
