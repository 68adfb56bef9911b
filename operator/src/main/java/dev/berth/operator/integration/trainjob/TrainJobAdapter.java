package dev.berth.operator.integration.trainjob;

import dev.berth.api.v1beta1.PodSet;
import dev.berth.api.v1beta1.PodSetAssignment;
import dev.berth.api.v1beta1.Workload;
import dev.berth.operator.integration.Integration;
import dev.berth.operator.integration.OwnerStatuses;
import dev.berth.operator.integration.PodTemplates;
import dev.berth.operator.integration.PriorityResolver;
import dev.berth.operator.integration.WorkloadNames;
import dev.berth.operator.integration.jobset.ChildJobStops;
import dev.berth.operator.kube.Copies;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A TrainJob as one Workload: a podSet per replicatedJob of its runtime, resolved with the
 * TrainJob's overrides as the Trainer makes its JobSet ({@link ResolvedRuntime}). Started by
 * unsuspending it with one pod spec override per podSet appended, carrying the flavors' node labels
 * and tolerations: v2.0.0's only way to place a TrainJob's pods, which the Trainer merges into its
 * JobSet when it resumes it. Stopped through {@code spec.suspend} (the Trainer suspends its JobSet,
 * whose child Jobs stop their pods); the quota goes back once each child Job has stopped and
 * acknowledged it ({@link ChildJobStops}), and the appended overrides go with the restore. The
 * JobSet is named after the TrainJob, so its child Jobs and pods carry the TrainJob's name in
 * {@code jobset.sigs.k8s.io/jobset-name}.
 */
public final class TrainJobAdapter implements Integration<TrainJob> {
  /** The JobSet controller's label on a JobSet's child Jobs and pods: the TrainJob's name. */
  public static final String JOBSET_NAME_LABEL = "jobset.sigs.k8s.io/jobset-name";

  /**
   * Put on a started TrainJob: how many of its pod spec overrides are its author's; the rest,
   * Berth's for this admission, are removed when it is restored.
   */
  public static final String OWN_OVERRIDES_ANNOTATION = "berth.dev/trainjob-own-overrides";

  /** The runtime a TrainJob names, as stored; empty while there is none. */
  @FunctionalInterface
  public interface Runtimes {
    Optional<RuntimeSpec> of(TrainJob trainJob);
  }

  /** The child Jobs of a TrainJob's JobSet (its name in {@link #JOBSET_NAME_LABEL}), cached. */
  @FunctionalInterface
  public interface ChildJobs {
    List<Job> of(TrainJob trainJob);
  }

  private final Runtimes runtimes;
  private final ChildJobs children;
  private final ChildJobStops stops = new ChildJobStops();

  public TrainJobAdapter(Runtimes runtimes, ChildJobs children) {
    this.runtimes = runtimes;
    this.children = children;
  }

  @Override
  public String kind() {
    return "TrainJob";
  }

  @Override
  public String workloadName(TrainJob job) {
    return WorkloadNames.of("trainjob", job);
  }

  /**
   * One whose runtime exists: without it neither Berth nor the Trainer knows its pods, and it stays
   * suspended with no Workload; the runtime's appearance brings it back (TrainJobReconciler).
   */
  @Override
  public boolean manages(TrainJob job) {
    return job.getSpec() != null
        && job.getSpec().runtimeRef != null
        && runtimes.of(job).isPresent();
  }

  private ResolvedRuntime resolved(TrainJob job) {
    RuntimeSpec runtime =
        runtimes
            .of(job)
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "TrainJob "
                            + job.getMetadata().getName()
                            + ": its runtime "
                            + job.getSpec().runtimeRef.name
                            + " is gone"));
    return ResolvedRuntime.of(job.getSpec(), runtime);
  }

  @Override
  public Workload newWorkload(TrainJob job, PriorityResolver priorities) {
    ResolvedRuntime runtime = resolved(job);
    ResolvedRuntime.ReplicatedJob trainer = runtime.trainer();
    PodTemplateSpec first =
        trainer != null
            ? trainer.template()
            : runtime.replicatedJobs().isEmpty()
                ? new PodTemplateSpec()
                : runtime.replicatedJobs().get(0).template();
    Workload workload =
        WorkloadNames.newWorkload(
            job,
            "trainer.kubeflow.org/v1alpha1",
            kind(),
            workloadName(job),
            podSets(runtime),
            priorities.resolve(job.getMetadata().getLabels(), first));
    workload.getSpec().maximumExecutionTimeSeconds =
        WorkloadNames.maxExecTime(job.getMetadata().getLabels());
    return workload;
  }

  @Override
  public List<PodSet> podSets(TrainJob job) {
    return podSets(resolved(withoutBerthOverrides(job)));
  }

  private static List<PodSet> podSets(ResolvedRuntime runtime) {
    List<PodSet> podSets = new ArrayList<>();
    for (ResolvedRuntime.ReplicatedJob rj : runtime.replicatedJobs()) {
      podSets.add(new PodSet(rj.name(), rj.pods(), Copies.deep(rj.template())));
    }
    return podSets;
  }

  @Override
  public boolean isSuspended(TrainJob job) {
    return Boolean.TRUE.equals(job.getSpec().suspend);
  }

  @Override
  public TrainJob suspended(TrainJob job) {
    TrainJob copy = Copies.deep(job);
    copy.getSpec().suspend = true;
    return copy;
  }

  /**
   * Unsuspended, with an override per admitted podSet appended: the template's nodeSelector
   * (overrides merged) with the flavors' node labels added, and its tolerations with the flavors'
   * added (an override's tolerations replace the template's, so they are all written).
   */
  @Override
  public TrainJob admitted(TrainJob job, Workload workload, FlavorLookup flavors) {
    TrainJob copy = withoutBerthOverrides(job);
    ResolvedRuntime runtime = resolved(copy);
    List<TrainJob.PodSpecOverride> overrides =
        copy.getSpec().podSpecOverrides == null
            ? new ArrayList<>()
            : new ArrayList<>(copy.getSpec().podSpecOverrides);
    int own = overrides.size();
    for (ResolvedRuntime.ReplicatedJob rj : runtime.replicatedJobs()) {
      Optional<PodSetAssignment> assignment =
          workload.getStatus().admission.podSetAssignments.stream()
              .filter(a -> rj.name().equals(a.name))
              .findFirst();
      if (assignment.isEmpty()) {
        continue;
      }
      PodTemplateSpec placed = Copies.deep(rj.template());
      PodTemplates.inject(placed, assignment.get(), workload.getMetadata().getUid(), flavors);
      TrainJob.PodSpecOverride override = new TrainJob.PodSpecOverride();
      TrainJob.TargetJob target = new TrainJob.TargetJob();
      target.name = rj.name();
      override.targetJobs = List.of(target);
      override.nodeSelector = placed.getSpec().getNodeSelector();
      override.tolerations = placed.getSpec().getTolerations();
      if (override.nodeSelector != null || override.tolerations != null) {
        overrides.add(override);
      }
    }
    copy.getSpec().podSpecOverrides = overrides.isEmpty() ? null : overrides;
    Map<String, String> annotations =
        new LinkedHashMap<>(
            copy.getMetadata().getAnnotations() == null
                ? Map.of()
                : copy.getMetadata().getAnnotations());
    annotations.put(OWN_OVERRIDES_ANNOTATION, String.valueOf(own));
    copy.getMetadata().setAnnotations(annotations);
    copy.getSpec().suspend = false;
    return copy;
  }

  /** Suspended, with only its author's pod spec overrides. */
  @Override
  public TrainJob restored(TrainJob job, Workload workload) {
    TrainJob copy = withoutBerthOverrides(job);
    copy.getSpec().suspend = true;
    return copy;
  }

  /** A copy without the overrides an admission appended, nor the annotation that counts them. */
  private static TrainJob withoutBerthOverrides(TrainJob job) {
    TrainJob copy = Copies.deep(job);
    Map<String, String> annotations = copy.getMetadata().getAnnotations();
    String own = annotations == null ? null : annotations.get(OWN_OVERRIDES_ANNOTATION);
    if (own == null) {
      return copy;
    }
    List<TrainJob.PodSpecOverride> overrides = copy.getSpec().podSpecOverrides;
    int keep;
    try {
      keep = Integer.parseInt(own);
    } catch (NumberFormatException e) {
      keep = overrides == null ? 0 : overrides.size();
    }
    if (overrides != null && keep < overrides.size()) {
      copy.getSpec().podSpecOverrides =
          keep <= 0 ? null : new ArrayList<>(overrides.subList(0, keep));
    }
    Map<String, String> rest = new LinkedHashMap<>(annotations);
    rest.remove(OWN_OVERRIDES_ANNOTATION);
    copy.getMetadata().setAnnotations(rest);
    return copy;
  }

  /** The Trainer's condition that holds and changed last (Suspended, Complete, Failed). */
  @Override
  public String ownerStatus(TrainJob job) {
    return OwnerStatuses.latestHolding(job.getStatus() == null ? null : job.getStatus().conditions)
        .orElseGet(() -> Integration.super.ownerStatus(job));
  }

  /** The Trainer's Complete or Failed condition, copied from its JobSet's. */
  @Override
  public Optional<Finish> finished(TrainJob job) {
    if (job.getStatus() == null || job.getStatus().conditions == null) {
      return Optional.empty();
    }
    for (Map<String, Object> c : job.getStatus().conditions) {
      if (!"True".equals(c.get("status"))) {
        continue;
      }
      Object message = c.get("message");
      if ("Complete".equals(c.get("type"))) {
        return Optional.of(
            new Finish(true, message == null ? "TrainJob completed" : message.toString()));
      }
      if ("Failed".equals(c.get("type"))) {
        return Optional.of(
            new Finish(false, message == null ? "TrainJob failed" : message.toString()));
      }
    }
    return Optional.empty();
  }

  /** Pods that still run, terminating ones included, counted from its JobSet's child Jobs. */
  @Override
  public int activePods(TrainJob job) {
    return stops.activePods(children.of(job));
  }

  @Override
  public int activePods(TrainJob job, List<Job> childJobs) {
    return stops.activePods(childJobs);
  }

  @Override
  public boolean awaitsStopRequest(TrainJob job) {
    return stops.awaitsStopRequest(children.of(job));
  }

  @Override
  public Optional<Job> stopRequest(TrainJob job, List<Pod> pods) {
    return stops.stopRequest(children.of(job), pods);
  }

  @Override
  public boolean suspensionAcknowledged(TrainJob job, List<Job> childJobs) {
    return stops.suspensionAcknowledged(childJobs);
  }

  @Override
  public Map<String, String> childJobLabels(TrainJob job) {
    return Map.of(JOBSET_NAME_LABEL, job.getMetadata().getName());
  }

  @Override
  public Map<String, String> podLabels(TrainJob job) {
    return childJobLabels(job);
  }

  @Override
  public boolean hasPodsToCount(TrainJob job, List<Pod> pods) {
    return hasPodsToCount(job) || stops.hasPodsToCount(pods);
  }

  /**
   * From the Trainer's copy of its JobSet's status, per replicatedJob: its Jobs that are ready (all
   * their pods ready or succeeded) or succeeded, times the pods of one such Job.
   */
  @Override
  public int readyPods(TrainJob job) {
    if (job.getStatus() == null
        || job.getStatus().jobsStatus == null
        || runtimes.of(job).isEmpty()) {
      return 0;
    }
    int pods = 0;
    for (ResolvedRuntime.ReplicatedJob rj : resolved(job).replicatedJobs()) {
      for (Map<String, Object> status : job.getStatus().jobsStatus) {
        if (rj.name().equals(status.get("name"))) {
          pods += (number(status.get("ready")) + number(status.get("succeeded"))) * rj.podsPerJob();
        }
      }
    }
    return pods;
  }

  private static int number(Object value) {
    return value instanceof Number n ? n.intValue() : 0;
  }
}
