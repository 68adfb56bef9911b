package dev.berth.operator.jobset;

import dev.berth.api.v1beta1.Admission;
import dev.berth.operator.job.PodTemplates;
import dev.berth.operator.job.TopologyAnnotations;
import dev.berth.operator.job.WorkloadNames;
import dev.berth.api.v1beta1.PodSet;
import dev.berth.api.v1beta1.PodSetAssignment;
import dev.berth.api.v1beta1.Workload;
import dev.berth.operator.job.Integration;
import dev.berth.operator.job.PriorityResolver;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A JobSet as one podSet per replicatedJob, of replicas × min(parallelism, completions) pods,
 * all admitted together; the flavor of each podSet goes into its replicatedJob's pod template.
 */
public final class JobSetAdapter implements Integration<JobSet> {
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
    int perJob = spec.getCompletions() == null ? parallelism : Math.min(parallelism, spec.getCompletions());
    return (rj.replicas == null ? 1 : rj.replicas) * perJob;
  }

  @Override
  public Workload newWorkload(JobSet jobSet, PriorityResolver priorities) {
    PodTemplateSpec first = jobSet.getSpec().replicatedJobs.get(0).template.getSpec().getTemplate();
    Workload workload = WorkloadNames.newWorkload(
        jobSet, "jobset.x-k8s.io/v1alpha2", kind(), workloadName(jobSet), podSets(jobSet),
        priorities.resolve(jobSet.getMetadata().getLabels(), first));
    workload.getSpec().maximumExecutionTimeSeconds =
        WorkloadNames.maxExecTime(jobSet.getMetadata().getLabels());
    return workload;
  }

  @Override
  public List<PodSet> podSets(JobSet jobSet) {
    List<PodSet> podSets = new ArrayList<>();
    for (JobSet.ReplicatedJob rj : jobSet.getSpec().replicatedJobs) {
      PodSet podSet = new PodSet(rj.name, podCount(rj), Serialization.clone(rj.template.getSpec().getTemplate()));
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
    JobSet copy = Serialization.clone(jobSet);
    copy.getSpec().suspend = true;
    return copy;
  }

  @Override
  public JobSet admitted(JobSet jobSet, Workload workload, FlavorLookup flavors) {
    JobSet copy = Serialization.clone(jobSet);
    for (JobSet.ReplicatedJob rj : copy.getSpec().replicatedJobs) {
      Optional<PodSetAssignment> assignment =
          workload.getStatus().admission.podSetAssignments.stream().filter(a -> rj.name.equals(a.name)).findFirst();
      assignment.ifPresent(
          a -> PodTemplates.inject(rj.template.getSpec().getTemplate(), a, workload.getMetadata().getUid(), flavors));
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
        return Optional.of(new Finish(true, message == null ? "JobSet completed" : message.toString()));
      }
      if ("Failed".equals(c.get("type"))) {
        return Optional.of(new Finish(false, message == null ? "JobSet failed" : message.toString()));
      }
    }
    return Optional.empty();
  }

  @Override
  public int activePods(JobSet jobSet) {
    if (jobSet.getStatus() == null || jobSet.getStatus().replicatedJobsStatus == null) {
      return 0;
    }
    return jobSet.getStatus().replicatedJobsStatus.stream()
        .mapToInt(s -> s.get("active") instanceof Number n ? n.intValue() : 0)
        .sum();
  }
}
