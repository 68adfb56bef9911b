package dev.berth.operator.integration.job;

import dev.berth.api.v1beta1.Berth;
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
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A batch/v1 Job as one podSet {@code main} of min(parallelism, completions) pods. Partial
 * admission lowers parallelism; the Job's own value is kept in an annotation until eviction.
 */
public final class JobAdapter implements Integration<Job> {
  public static final String PODSET = "main";

  /** Where the Job's own parallelism is kept while partial admission lowers it. */
  public static final String ORIGINAL_PARALLELISM = Berth.ORIGINAL_PARALLELISM_ANNOTATION;

  /** The Job controller's finalizer on each pod it has not counted yet. */
  static final String JOB_TRACKING_FINALIZER = "batch.kubernetes.io/job-tracking";

  /** The Job controller's label on its pods, naming the Job's UID. */
  public static final String CONTROLLER_UID_LABEL = "batch.kubernetes.io/controller-uid";

  /**
   * Put on a suspended Job in the status write that takes its {@code Suspended} condition away (see
   * {@link #stopRequested}); taken off when Berth starts or suspends the Job. While it is on, a
   * {@code Suspended=True} condition can only be the Job controller's acknowledgment of that
   * suspension.
   */
  static final String STOP_REQUESTED_ANNOTATION = Berth.STOP_REQUESTED_ANNOTATION;

  /** The Job controller's condition saying it has seen the Job suspended (reason JobSuspended). */
  static final String SUSPENDED_CONDITION = "Suspended";

  @Override
  public String kind() {
    return "Job";
  }

  @Override
  public String workloadName(Job job) {
    return WorkloadNames.of("job", job);
  }

  /**
   * The number of pods the Job runs at once: min(parallelism, completions), parallelism 1 when
   * unset.
   */
  static int podCount(Job job) {
    int parallelism = originalParallelism(job);
    Integer completions = job.getSpec().getCompletions();
    return completions == null ? parallelism : Math.min(parallelism, completions);
  }

  private static int originalParallelism(Job job) {
    String kept = annotation(job, ORIGINAL_PARALLELISM);
    if (kept != null) {
      return Integer.parseInt(kept);
    }
    Integer parallelism = job.getSpec().getParallelism();
    return parallelism == null ? 1 : parallelism;
  }

  @Override
  public Workload newWorkload(Job job, PriorityResolver priorities) {
    Workload workload =
        WorkloadNames.newWorkload(
            job,
            "batch/v1",
            kind(),
            workloadName(job),
            podSets(job),
            priorities.resolve(job.getMetadata().getLabels(), job.getSpec().getTemplate()));
    workload.getSpec().maximumExecutionTimeSeconds =
        WorkloadNames.maxExecTime(job.getMetadata().getLabels());
    return workload;
  }

  @Override
  public List<PodSet> podSets(Job job) {
    PodSet podSet = new PodSet(PODSET, podCount(job), Copies.deep(job.getSpec().getTemplate()));
    podSet.topologyRequest = TopologyAnnotations.request(job.getSpec().getTemplate());
    if ("Indexed".equals(job.getSpec().getCompletionMode())) {
      podSet.topologyRequest =
          TopologyAnnotations.ranked(
              podSet.topologyRequest, TopologyAnnotations.JOB_COMPLETION_INDEX, null, 1);
    }
    String min = annotation(job, Berth.JOB_MIN_PARALLELISM_ANNOTATION);
    if (min != null) {
      podSet.minCount = Math.min(Integer.parseInt(min.trim()), podSet.count);
    }
    return List.of(podSet);
  }

  @Override
  public boolean isSuspended(Job job) {
    return Boolean.TRUE.equals(job.getSpec().getSuspend());
  }

  /**
   * A suspended copy, without {@link #STOP_REQUESTED_ANNOTATION}: a request made before an earlier
   * start must not make a {@code Suspended=True} from before this suspension read as its
   * acknowledgment.
   */
  @Override
  public Job suspended(Job job) {
    Job copy = copy(job);
    copy.getMetadata().getAnnotations().remove(STOP_REQUESTED_ANNOTATION);
    copy.getSpec().setSuspend(true);
    return copy;
  }

  @Override
  public Job admitted(Job job, Workload workload, FlavorLookup flavors) {
    Job result = copy(job);
    PodSetAssignment assignment =
        workload.getStatus().admission.podSetAssignments.stream()
            .filter(a -> PODSET.equals(a.name))
            .findFirst()
            .orElseThrow();
    PodTemplates.inject(
        result.getSpec().getTemplate(), assignment, workload.getMetadata().getUid(), flavors);
    PodTemplates.applyCheckUpdates(result.getSpec().getTemplate(), workload, PODSET);
    int admittedCount = assignment.count == null ? podCount(job) : assignment.count;
    if (admittedCount < podCount(job)) {
      result
          .getMetadata()
          .getAnnotations()
          .put(ORIGINAL_PARALLELISM, String.valueOf(originalParallelism(job)));
      result.getSpec().setParallelism(admittedCount);
    }
    result.getMetadata().getAnnotations().remove(STOP_REQUESTED_ANNOTATION);
    result.getSpec().setSuspend(false);
    return result;
  }

  /** Suspended as it is (the stop request, made before the restore, stays on). */
  @Override
  public Job restored(Job job, Workload workload) {
    Job result = copy(job);
    result.getSpec().setSuspend(true);
    PodTemplates.restore(
        result.getSpec().getTemplate(), workload.getSpec().podSets.get(0).template);
    String parallelism = result.getMetadata().getAnnotations().remove(ORIGINAL_PARALLELISM);
    if (parallelism != null) {
      result.getSpec().setParallelism(Integer.parseInt(parallelism));
    }
    return result;
  }

  @Override
  public boolean hasStartTime(Job job) {
    return job.getStatus() != null && job.getStatus().getStartTime() != null;
  }

  /**
   * Whether the Job controller is finishing the Job: it wrote the interim SuccessCriteriaMet or
   * FailureTarget condition and has yet to write Complete or Failed, which needs a start time.
   */
  private static boolean finishing(Job job) {
    return job.getStatus() != null
        && job.getStatus().getConditions() != null
        && job.getStatus().getConditions().stream()
            .anyMatch(
                c ->
                    ("SuccessCriteriaMet".equals(c.getType())
                            || "FailureTarget".equals(c.getType()))
                        && "True".equals(c.getStatus()));
  }

  /**
   * A Job being finished without a start time (cleared by the Job controller itself when it saw the
   * suspension, with MutableSchedulingDirectivesForSuspendedJobs, while its last pod was about to
   * succeed) can never be: the start time is given back, the interim condition's time (never after
   * the completion time the controller will write).
   */
  @Override
  public Optional<Job> startTimeToFinish(Job job) {
    if (hasStartTime(job) || !finishing(job)) {
      return Optional.empty();
    }
    String since =
        job.getStatus().getConditions().stream()
            .filter(
                c ->
                    ("SuccessCriteriaMet".equals(c.getType())
                            || "FailureTarget".equals(c.getType()))
                        && "True".equals(c.getStatus()))
            .map(c -> c.getLastTransitionTime())
            .filter(java.util.Objects::nonNull)
            .findFirst()
            .orElse(null);
    if (since == null) {
      return Optional.empty();
    }
    Job copy = copy(job);
    copy.getStatus().setStartTime(since);
    return Optional.of(copy);
  }

  @Override
  public boolean hasPodsToCount(Job job) {
    // A Job being finished is left to its controller: neither its start time nor its Suspended
    // condition is touched, and its quota waits for the finish.
    if (activePods(job) > 0 || finishing(job)) {
      return true;
    }
    var uncounted = job.getStatus() == null ? null : job.getStatus().getUncountedTerminatedPods();
    return uncounted != null
        && (notEmpty(uncounted.getSucceeded()) || notEmpty(uncounted.getFailed()));
  }

  /**
   * Whether the Job controller has a pod of this Job still to count, from the Job's status or from
   * its pods. The status alone is not enough (the fault suite's third stall): in the sync that
   * deletes a suspended Job's pods, the Job controller writes {@code active} less the pods it
   * deleted and {@code terminating} as counted before it deleted them, so for a moment the status
   * shows no pod at all while one still runs; one that then finishes is counted only in a later
   * write, and if the start time went in between, the Job can never finish. So also every pod that
   * still carries the controller's tracking finalizer, or has not stopped, is one to count.
   *
   * <p>This is sound when {@code pods} was listed after {@code job} was read and the start time is
   * then cleared with the Job's resourceVersion: the controller takes the finalizer off a finished
   * pod only after a Job write that lists it in {@code uncountedTerminatedPods}, so a pod whose
   * finalizer is gone is either in this {@code job}'s status, or the Job has changed since and the
   * write is refused with a conflict.
   */
  @Override
  public boolean hasPodsToCount(Job job, List<Pod> pods) {
    return hasPodsToCount(job) || pods.stream().anyMatch(JobAdapter::notCountedYet);
  }

  /**
   * Whether the Job controller has yet to count this pod of one of its Jobs: it still carries the
   * controller's tracking finalizer, or has not stopped.
   */
  public static boolean notCountedYet(Pod pod) {
    List<String> finalizers = pod.getMetadata().getFinalizers();
    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
    return (finalizers != null && finalizers.contains(JOB_TRACKING_FINALIZER))
        || !("Succeeded".equals(phase) || "Failed".equals(phase));
  }

  /** The Job controller's pod label naming the Job's UID (Kubernetes 1.27 and later). */
  @Override
  public Map<String, String> podLabels(Job job) {
    return Map.of(CONTROLLER_UID_LABEL, job.getMetadata().getUid());
  }

  private static boolean notEmpty(java.util.List<String> uids) {
    return uids != null && !uids.isEmpty();
  }

  @Override
  public Job withoutStartTime(Job job) {
    Job copy = copy(job);
    if (copy.getStatus() != null) {
      copy.getStatus().setStartTime(null);
    }
    return copy;
  }

  /** The value of {@code spec.managedBy} that names the built-in Job controller. */
  static final String JOB_CONTROLLER = "kubernetes.io/job-controller";

  /**
   * Whether the built-in Job controller runs this Job, and so acknowledges its suspension: a Job
   * whose {@code spec.managedBy} names another controller is never synced by it, and waiting for
   * its acknowledgment would hold the quota for ever.
   */
  private static boolean acknowledges(Job job) {
    String managedBy = job.getSpec() == null ? null : job.getSpec().getManagedBy();
    return managedBy == null || JOB_CONTROLLER.equals(managedBy);
  }

  /**
   * Whether the Job controller is still to be asked, with {@code mark}, to acknowledge the Job's
   * suspension (never, for a Job it does not run).
   */
  public boolean awaitsStopRequest(Job job, String mark) {
    return acknowledges(job) && !mark.equals(annotation(job, STOP_REQUESTED_ANNOTATION));
  }

  @Override
  public boolean awaitsStopRequest(Job job) {
    return hasStartTime(job)
        || (acknowledges(job) && !stopRequested(job.getMetadata().getAnnotations()));
  }

  /**
   * The Job's status without a start time and without its {@code Suspended} condition, marked with
   * {@link #STOP_REQUESTED_ANNOTATION} (the status endpoint of a Job keeps metadata changes). The
   * Job controller sets {@code Suspended=True} again only in a sync that read the Job suspended
   * from its cache and found every pod it had asked to create in that cache (its creation
   * expectations satisfied), and writes it with the version it read: the write succeeds only if
   * that version is still the stored one, so at least this one. Syncs of one Job do not overlap and
   * create their pods before they return, and a later sync reads a cache at least as new. So once
   * the condition is back, every pod the controller will create for this suspension exists and a
   * list finds it; without the reset, a {@code Suspended=True} written before the Job's last start
   * (the controller never synced it running) would read the same.
   */
  @Override
  public Job stopRequested(Job job) {
    return stopRequested(job, "true");
  }

  /**
   * {@link #stopRequested(Job)} with {@code mark} as the annotation's value: a JobSet's child Job,
   * which its JobSet controller (not Berth) suspends and resumes, is marked with the generation it
   * was asked at ({@code JobSetAdapter}), so that a mark from before a resume reads as stale.
   */
  public Job stopRequested(Job job, String mark) {
    Job copy = withoutStartTime(job);
    if (!acknowledges(job)) {
      return copy;
    }
    copy.getMetadata().getAnnotations().put(STOP_REQUESTED_ANNOTATION, mark);
    if (copy.getStatus() != null && copy.getStatus().getConditions() != null) {
      copy.getStatus()
          .setConditions(
              new ArrayList<>(
                  copy.getStatus().getConditions().stream()
                      .filter(c -> !SUSPENDED_CONDITION.equals(c.getType()))
                      .toList()));
    }
    return copy;
  }

  @Override
  public boolean suspensionAcknowledged(Job job) {
    return acknowledged(job, stopRequested(job.getMetadata().getAnnotations()));
  }

  /** {@link #suspensionAcknowledged(Job)} of a request marked {@code mark}, not another. */
  public boolean suspensionAcknowledged(Job job, String mark) {
    Map<String, String> annotations = job.getMetadata().getAnnotations();
    return acknowledged(
        job, annotations != null && mark.equals(annotations.get(STOP_REQUESTED_ANNOTATION)));
  }

  private boolean acknowledged(Job job, boolean requested) {
    if (!acknowledges(job)) {
      return true;
    }
    return requested
        && job.getStatus() != null
        && job.getStatus().getConditions() != null
        && job.getStatus().getConditions().stream()
            .anyMatch(c -> SUSPENDED_CONDITION.equals(c.getType()) && "True".equals(c.getStatus()));
  }

  private static boolean stopRequested(Map<String, String> annotations) {
    return annotations != null && annotations.containsKey(STOP_REQUESTED_ANNOTATION);
  }

  /**
   * The Job controller's condition that holds and changed last ({@code Complete}, {@code Failed},
   * {@code Suspended}, ...), else the default (suspended, or its active pods).
   */
  @Override
  public String ownerStatus(Job job) {
    if (job.getStatus() != null && job.getStatus().getConditions() != null) {
      List<Map<String, Object>> conditions = new ArrayList<>();
      for (var c : job.getStatus().getConditions()) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", c.getType());
        m.put("status", c.getStatus());
        m.put("lastTransitionTime", c.getLastTransitionTime());
        conditions.add(m);
      }
      Optional<String> holding = OwnerStatuses.latestHolding(conditions);
      if (holding.isPresent()) {
        return holding.get();
      }
    }
    return Integration.super.ownerStatus(job);
  }

  @Override
  public Optional<Finish> finished(Job job) {
    if (job.getStatus() == null || job.getStatus().getConditions() == null) {
      return Optional.empty();
    }
    return job.getStatus().getConditions().stream()
        .filter(c -> ("Complete".equals(c.getType()) || "Failed".equals(c.getType())))
        .filter(c -> "True".equals(c.getStatus()))
        .findFirst()
        .map(
            c -> {
              boolean ok = "Complete".equals(c.getType());
              String message =
                  c.getMessage() != null
                      ? c.getMessage()
                      : ok ? "Job finished successfully" : "Job failed";
              return new Finish(ok, message);
            });
  }

  @Override
  /**
   * Pods that still run, terminating ones included: a deleted pod holds its node's GPUs until the
   * kubelet has stopped it, so an evicted Job's quota is released only after that.
   */
  public int activePods(Job job) {
    if (job.getStatus() == null) {
      return 0;
    }
    return count(job.getStatus().getActive()) + count(job.getStatus().getTerminating());
  }

  /** The Job controller's counts of ready (running, readiness passed) and succeeded pods. */
  @Override
  public int readyPods(Job job) {
    if (job.getStatus() == null) {
      return 0;
    }
    return count(job.getStatus().getReady()) + count(job.getStatus().getSucceeded());
  }

  private static int count(Integer pods) {
    return pods == null ? 0 : pods;
  }

  private static String annotation(Job job, String key) {
    var annotations = job.getMetadata().getAnnotations();
    return annotations == null ? null : annotations.get(key);
  }

  private static Job copy(Job job) {
    Job clone = Copies.deep(job);
    if (clone.getMetadata().getAnnotations() == null) {
      clone.getMetadata().setAnnotations(new LinkedHashMap<>());
    }
    return clone;
  }
}
