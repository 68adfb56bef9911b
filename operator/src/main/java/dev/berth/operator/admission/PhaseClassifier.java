package dev.berth.operator.admission;

import dev.berth.api.v1beta1.Condition;
import dev.berth.api.v1beta1.Workload;
import dev.berth.api.v1beta1.WorkloadStatus;
import dev.berth.operator.Timestamps;
import java.time.format.DateTimeParseException;

/**
 * Reads a stored Workload version into its {@link WorkloadPhase}: one pass over its conditions, no
 * I/O, nothing remembered between calls. The loop classifies each version once, when it observes
 * it, and every reader takes the phase from there.
 */
public final class PhaseClassifier {
  private static final WorkloadPhase PENDING = new WorkloadPhase.Pending();
  private static final WorkloadPhase DEACTIVATED = new WorkloadPhase.Deactivated();
  private static final WorkloadPhase AWAITING_REQUEUE_RESET =
      new WorkloadPhase.AwaitingRequeueReset();

  private final boolean waitForPodsReady;

  /**
   * @param waitForPodsReady waitForPodsReady is enabled: only then does a Workload deactivated for
   *     its requeuing limit and set active again wait for its requeueState to be reset
   */
  public PhaseClassifier(boolean waitForPodsReady) {
    this.waitForPodsReady = waitForPodsReady;
  }

  /**
   * The phase of {@code wl} at {@code now} (epoch millis: a requeueAt not after it is over).
   * Conditions count as in {@link StatusConditions}: the first of each type, True or not.
   */
  public WorkloadPhase classify(Workload wl, long now) {
    WorkloadStatus status = wl.getStatus();
    Condition finished = null;
    Condition quotaReserved = null;
    Condition evicted = null;
    Condition admitted = null;
    Condition podsReady = null;
    if (status != null && status.conditions != null) {
      // One loop, not a lookup per type: the loop classifies every version it observes.
      for (Condition c : status.conditions) {
        if (c.type == null) {
          continue;
        }
        switch (c.type) {
          case StatusConditions.FINISHED -> finished = finished == null ? c : finished;
          case StatusConditions.QUOTA_RESERVED ->
              quotaReserved = quotaReserved == null ? c : quotaReserved;
          case StatusConditions.EVICTED -> evicted = evicted == null ? c : evicted;
          case StatusConditions.ADMITTED -> admitted = admitted == null ? c : admitted;
          case StatusConditions.PODS_READY -> podsReady = podsReady == null ? c : podsReady;
          default -> {}
        }
      }
    }
    if (isTrue(finished)) {
      boolean hadAdmission = status.admission != null;
      return new WorkloadPhase.Finished(
          millis(finished),
          hadAdmission ? status.admission.clusterQueue : null,
          hadAdmission ? millis(quotaReserved) : 0);
    }
    boolean active = wl.getSpec() == null || !Boolean.FALSE.equals(wl.getSpec().active);
    if (isTrue(quotaReserved)
        && status.admission != null
        && status.admission.clusterQueue != null) {
      var held =
          new WorkloadPhase.Reservation(
              status.admission.clusterQueue, millis(quotaReserved), isTrue(podsReady));
      if (isTrue(evicted)) {
        return new WorkloadPhase.Evicting(held);
      }
      if (!active) {
        return new WorkloadPhase.Deactivating(held);
      }
      return isTrue(admitted)
          ? new WorkloadPhase.Admitted(held, millis(admitted))
          : new WorkloadPhase.Reserved(held);
    }
    if (!active) {
      return DEACTIVATED;
    }
    if (waitForPodsReady
        && status != null
        && status.requeueState != null
        && isTrue(evicted)
        && PodsReadyWriter.LIMIT_EXCEEDED.equals(evicted.reason)) {
      return AWAITING_REQUEUE_RESET;
    }
    long requeueAt = RequeueHold.requeueAt(wl);
    return requeueAt > now ? new WorkloadPhase.BackingOff(requeueAt) : PENDING;
  }

  private static boolean isTrue(Condition c) {
    return c != null && c.isTrue();
  }

  /** A condition's last transition (epoch millis); 0 when absent or unreadable. */
  private static long millis(Condition c) {
    if (c == null || c.lastTransitionTime == null) {
      return 0;
    }
    try {
      return Timestamps.millis(c.lastTransitionTime);
    } catch (DateTimeParseException e) {
      return 0;
    }
  }
}
