package dev.berth.operator.integration;

import dev.berth.api.v1beta1.PodSet;
import dev.berth.api.v1beta1.Workload;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What Berth needs to know about one kind of object (a Job, a JobSet, a plain Pod) to run it under
 * admission. Implementations are pure: they return changed copies, never write.
 */
public interface Integration<T extends HasMetadata> {
  String kind();

  String workloadName(T owner);

  Workload newWorkload(T owner, PriorityResolver priorities);

  /**
   * The podSets the owner asks for now, as {@link #newWorkload} would write them: compared with its
   * Workload's to requeue an owner resized while suspended.
   */
  List<PodSet> podSets(T owner);

  boolean isSuspended(T owner);

  /**
   * Whether Berth runs this object under a Workload; by default every one its informer selects
   * (those with the queue-name label). A kind whose label alone does not say it (a plain Pod: only
   * those its webhook gated) narrows it; an object it does not manage is left alone.
   */
  default boolean manages(T owner) {
    return true;
  }

  /**
   * Whether an owner is stopped by deleting it rather than by writing {@link #suspended}: a pod's
   * scheduling gate cannot be added back once removed, so a started pod is stopped as Kueue stops
   * one, by deletion, and its quota goes back once it is gone.
   */
  default boolean stoppedByDeletion() {
    return false;
  }

  /** A copy, suspended. */
  T suspended(T owner);

  /**
   * A copy that starts under the Workload's admission: flavors injected, topology-placed podSets
   * labelled for their gate, counts set, unsuspended.
   */
  T admitted(T owner, Workload workload, FlavorLookup flavors);

  /** A suspended copy with the pod templates and counts the user wrote (kept in the Workload). */
  T restored(T owner, Workload workload);

  /** Whether a start time must be cleared (a status write) before the templates may change. */
  default boolean hasStartTime(T owner) {
    return false;
  }

  default T withoutStartTime(T owner) {
    return owner;
  }

  /**
   * The status to write so that the owner's controller can finish it, if it is finishing without a
   * start time (the API server refuses a finished Job without one); empty otherwise.
   */
  default Optional<T> startTimeToFinish(T owner) {
    return Optional.empty();
  }

  /**
   * Whether a suspended owner still needs a status write before its quota may be given back: a
   * start time to clear, or its controller not yet asked to acknowledge the suspension ({@link
   * #stopRequested}). Kinds whose controller gives no such acknowledgment ask for the start time
   * only.
   */
  default boolean awaitsStopRequest(T owner) {
    return hasStartTime(owner);
  }

  /**
   * The status to write to a suspended owner whose pods are all counted: no start time, and, where
   * the owner's controller acknowledges a suspension, the request for that acknowledgment ({@link
   * #suspensionAcknowledged}).
   */
  default T stopRequested(T owner) {
    return withoutStartTime(owner);
  }

  /**
   * Whether the owner's controller has acknowledged its suspension since {@link #stopRequested} was
   * written: from then on it creates no pod for it. Quota is given back only after that, since a
   * pod that does not exist yet cannot be seen in a list. True for kinds without such an
   * acknowledgment.
   */
  default boolean suspensionAcknowledged(T owner) {
    return true;
  }

  /**
   * Whether the owner's controller has pods still to count (running, terminating, or finished but
   * not yet in its status). A Job's start time may be cleared only after that: a pod that succeeded
   * after the suspend must be counted under a start time, or the Job can never finish (the API
   * server refuses a finished Job without one) and its quota is never given back.
   */
  default boolean hasPodsToCount(T owner) {
    return activePods(owner) > 0;
  }

  /**
   * Labels that select the owner's pods, listed from the API server before a start time is cleared
   * ({@link #hasPodsToCount(HasMetadata, List)}); none for kinds without a start time.
   */
  default Map<String, String> podLabels(T owner) {
    return Map.of();
  }

  /**
   * {@link #hasPodsToCount(HasMetadata)}, or one of the owner's pods (read live, after the owner)
   * not counted by its controller yet. The owner's status alone lags its pods: see {@link
   * dev.berth.operator.integration.job.JobAdapter#hasPodsToCount(io.fabric8.kubernetes.api.model.batch.v1.Job,
   * List)}.
   */
  default boolean hasPodsToCount(T owner, List<Pod> pods) {
    return hasPodsToCount(owner);
  }

  /**
   * The status write that asks the owner's controller to acknowledge its suspension ({@link
   * #stopRequested}), once the pods it has (read live, after the owner) are all counted; empty
   * while there is nothing to write yet (the event that counts the last pod brings the next call).
   * A kind whose pods are run by child Jobs asks on one of them instead, one write per call.
   */
  default Optional<? extends HasMetadata> stopRequest(T owner, List<Pod> pods) {
    return hasPodsToCount(owner, pods) ? Optional.empty() : Optional.of(stopRequested(owner));
  }

  /**
   * Labels that select the owner's child Jobs, read live before its quota is given back, for kinds
   * whose pods are run by batch/v1 Jobs of their own (a JobSet's); none otherwise.
   */
  default Map<String, String> childJobLabels(T owner) {
    return Map.of();
  }

  /**
   * {@link #suspensionAcknowledged(HasMetadata)}, with the owner's child Jobs read live after it
   * ({@link #childJobLabels}): a kind whose child Jobs run its pods needs every one of them stopped
   * and acknowledged by the Job controller.
   */
  default boolean suspensionAcknowledged(T owner, List<Job> childJobs) {
    return suspensionAcknowledged(owner);
  }

  /**
   * {@link #activePods(HasMetadata)}, counted from child Jobs read live ({@link #childJobLabels}).
   */
  default int activePods(T owner, List<Job> childJobs) {
    return activePods(owner);
  }

  /** Whether it succeeded or failed, with the reason's message; empty while it runs. */
  Optional<Finish> finished(T owner);

  int activePods(T owner);

  /**
   * Pods that are ready or have succeeded, for waitForPodsReady: the workload is PodsReady once
   * this reaches the pod count it was admitted with.
   */
  int readyPods(T owner);

  /**
   * The object's own state in a few words, as its kind's controller reports it (a RayJob's {@code
   * jobDeploymentStatus}, a Job's last condition), for {@code kubectl berth pending} and the
   * dashboard ({@link OwnerStatuses}). Read from the informer's copy: no API call. By default what
   * every adapter knows: finished, suspended, or its active pods; a kind overrides it with what its
   * controller writes.
   */
  default String ownerStatus(T owner) {
    Optional<Finish> finish = finished(owner);
    if (finish.isPresent()) {
      return finish.get().succeeded() ? "Succeeded" : "Failed";
    }
    if (isSuspended(owner)) {
      return "Suspended";
    }
    int active = activePods(owner);
    return active > 0 ? "Running (" + active + " pods)" : "Starting";
  }

  /** How it ended. */
  record Finish(boolean succeeded, String message) {}

  /** The node labels and tolerations of a ResourceFlavor, by name. */
  interface FlavorLookup {
    Map<String, String> nodeLabels(String flavor);

    List<Toleration> tolerations(String flavor);
  }
}
