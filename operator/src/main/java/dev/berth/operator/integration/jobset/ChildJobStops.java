package dev.berth.operator.integration.jobset;

import dev.berth.operator.integration.job.JobAdapter;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Stopping the child Jobs of a JobSet, for every kind whose pods a JobSet's Jobs run (a JobSet, the
 * JobSet Kubeflow Trainer makes for a TrainJob). The JobSet controller suspends a JobSet's child
 * Jobs, and the Job controller stops their pods; either may still act on a copy that reads running
 * (the JobSet controller resumes a child Job, the Job controller creates a pod), so an evicted
 * owner's quota goes back only once the Job controller has acknowledged each child Job's
 * suspension, as for a Job (JobAdapter#stopRequested). Berth neither suspends nor resumes child
 * Jobs, so it cannot take an old mark away on a resume, as it does for a Job: the mark names the
 * child Job's generation instead, which every suspend and resume (spec writes) raises, and a mark
 * of another generation is no request. Not covered: a child Job the JobSet controller has yet to
 * create from a copy of the JobSet that reads running (docs/reliability.md).
 */
public final class ChildJobStops {
  private final JobAdapter jobs = new JobAdapter();

  /** Pods that still run, terminating ones included, counted from the child Jobs. */
  public int activePods(List<Job> children) {
    int pods = 0;
    for (Job child : children) {
      pods += jobs.activePods(child);
    }
    return pods;
  }

  /** The mark of a stop request made at the child Job's current generation. */
  static String mark(Job child) {
    return String.valueOf(child.getMetadata().getGeneration());
  }

  /**
   * A child Job that is unfinished and not yet asked, as it is now, to acknowledge a suspension.
   */
  private boolean awaitsStopRequest(Job child) {
    return jobs.finished(child).isEmpty()
        && (!jobs.isSuspended(child) || jobs.awaitsStopRequest(child, mark(child)));
  }

  /** While a child Job is not suspended, or suspended but not yet asked. */
  public boolean awaitsStopRequest(List<Job> children) {
    return children.stream().anyMatch(this::awaitsStopRequest);
  }

  /**
   * The status write that asks about one suspended child Job whose pods are all counted (its
   * version carried, so a child Job changed since is not written); empty while none is ready.
   */
  public Optional<Job> stopRequest(List<Job> children, List<Pod> pods) {
    for (Job child : children) {
      if (!jobs.isSuspended(child) || !awaitsStopRequest(child)) {
        continue;
      }
      String uid = child.getMetadata().getUid();
      List<Pod> its =
          pods.stream().filter(p -> uid.equals(label(p.getMetadata().getLabels()))).toList();
      if (!jobs.hasPodsToCount(child, its)) {
        return Optional.of(jobs.stopRequested(child, mark(child)));
      }
    }
    return Optional.empty();
  }

  /** Each child Job (read live) finished, or suspended and its suspension acknowledged. */
  public boolean suspensionAcknowledged(List<Job> children) {
    return children.stream()
        .allMatch(
            child ->
                jobs.finished(child).isPresent()
                    || (jobs.isSuspended(child)
                        && jobs.suspensionAcknowledged(child, mark(child))));
  }

  /** A pod (listed live) its Job controller has not counted yet. */
  public boolean hasPodsToCount(List<Pod> pods) {
    return pods.stream().anyMatch(JobAdapter::notCountedYet);
  }

  private static String label(Map<String, String> labels) {
    return labels == null ? null : labels.get(JobAdapter.CONTROLLER_UID_LABEL);
  }
}
