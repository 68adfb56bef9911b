package dev.berth.e2e.faults;

import dev.berth.api.v1beta1.Condition;
import dev.berth.api.v1beta1.Workload;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * What a stalled run's unfinished Jobs look like on the API server, one line each: the Job's
 * suspension and the Job controller's counts (start time, active, terminating, uncounted pods,
 * conditions), and every Workload it owns with its conditions and admission. A stall is diagnosed
 * from this first: a Job with no Workload was never reconciled, one whose Workload is pending waits
 * for admission, one whose Workload holds quota and is still suspended was never started.
 */
final class StuckJobs {
  private StuckJobs() {}

  static String describe(KubernetesClient admin, String namespace, List<String> jobNames) {
    Map<String, List<Workload>> byJob =
        admin.resources(Workload.class).inNamespace(namespace).list().getItems().stream()
            .filter(w -> owner(w) != null)
            .collect(Collectors.groupingBy(StuckJobs::owner));
    return jobNames.stream()
        .map(name -> admin.batch().v1().jobs().inNamespace(namespace).withName(name).get())
        .filter(j -> j != null)
        .map(j -> job(j) + "\n    " + workloads(byJob.get(j.getMetadata().getName())))
        .collect(Collectors.joining("\n  ", "  ", ""));
  }

  private static String owner(Workload workload) {
    List<OwnerReference> owners = workload.getMetadata().getOwnerReferences();
    return owners == null
        ? null
        : owners.stream()
            .filter(o -> "Job".equals(o.getKind()))
            .map(OwnerReference::getName)
            .findFirst()
            .orElse(null);
  }

  private static String job(Job job) {
    JobStatus s = job.getStatus() == null ? new JobStatus() : job.getStatus();
    var uncounted = s.getUncountedTerminatedPods();
    return job.getMetadata().getName()
        + " rv="
        + job.getMetadata().getResourceVersion()
        + " suspend="
        + job.getSpec().getSuspend()
        + " startTime="
        + s.getStartTime()
        + " active="
        + s.getActive()
        + " terminating="
        + s.getTerminating()
        + " succeeded="
        + s.getSucceeded()
        + " failed="
        + s.getFailed()
        + " uncounted="
        + (uncounted == null ? null : uncounted.getSucceeded() + "/" + uncounted.getFailed())
        + " conditions="
        + (s.getConditions() == null
            ? "[]"
            : s.getConditions().stream()
                .map(c -> c.getType() + "=" + c.getStatus() + "(" + c.getReason() + ")")
                .toList());
  }

  private static String workloads(List<Workload> workloads) {
    if (workloads == null || workloads.isEmpty()) {
      return "no Workload";
    }
    return workloads.stream()
        .map(
            w ->
                "Workload "
                    + w.getMetadata().getName()
                    + " rv="
                    + w.getMetadata().getResourceVersion()
                    + (w.getMetadata().getDeletionTimestamp() == null ? "" : " deleting")
                    + " admission="
                    + (w.getStatus() == null || w.getStatus().admission == null
                        ? null
                        : w.getStatus().admission.clusterQueue)
                    + " conditions="
                    + conditions(w))
        .collect(Collectors.joining("\n    "));
  }

  private static String conditions(Workload w) {
    if (w.getStatus() == null || w.getStatus().conditions == null) {
      return "[]";
    }
    return w.getStatus().conditions.stream().map(StuckJobs::condition).toList().toString();
  }

  private static String condition(Condition c) {
    return c.type + "=" + c.status + "(" + c.reason + ": " + c.message + ")";
  }
}
