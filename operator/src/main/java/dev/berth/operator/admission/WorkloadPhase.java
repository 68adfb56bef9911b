package dev.berth.operator.admission;

import java.util.Optional;

/**
 * Where a stored Workload version stands as Berth reads it, decided once per observed version by
 * {@link PhaseClassifier} and handed to the engine's feed and to every {@link ClusterObserver}, so
 * that none of them reads the conditions again. The phases are exclusive and tried in this order:
 * finished, then holding quota (evicting, deactivating, reserved, admitted), then without quota
 * (deactivated, awaiting its requeue reset, backing off, pending).
 */
public sealed interface WorkloadPhase {

  /** The quota the Workload holds, when it holds some. */
  default Optional<Reservation> reservation() {
    return Optional.empty();
  }

  /**
   * Not finished, not holding quota and active: a candidate for the queue, now or after its
   * backoff.
   */
  default boolean queued() {
    return false;
  }

  /**
   * Its QuotaReserved condition is True and status.admission names a ClusterQueue.
   *
   * @param clusterQueue status.admission.clusterQueue
   * @param reservedAt when QuotaReserved last turned (epoch millis; 0 if unknown), the order
   *     preemption's "most recently admitted first" keeps across restarts
   * @param podsReady its PodsReady condition is True
   */
  record Reservation(String clusterQueue, long reservedAt, boolean podsReady) {}

  /**
   * The Finished condition is True: it takes nothing and is never queued again.
   *
   * @param at when it finished (epoch millis; 0 if unknown)
   * @param clusterQueue status.admission.clusterQueue, if it ever had an admission (else null)
   * @param reservedAt when its quota was reserved (epoch millis); 0 if unknown or never admitted
   */
  record Finished(long at, String clusterQueue, long reservedAt) implements WorkloadPhase {}

  /** Holding quota with Evicted True: its pods are being stopped, then its quota released. */
  record Evicting(Reservation held) implements WorkloadPhase {
    @Override
    public Optional<Reservation> reservation() {
      return Optional.of(held);
    }
  }

  /**
   * Holding quota with spec.active=false and not yet Evicted: it is to be evicted, and keeps its
   * quota until its pods stop.
   */
  record Deactivating(Reservation held) implements WorkloadPhase {
    @Override
    public Optional<Reservation> reservation() {
      return Optional.of(held);
    }
  }

  /** Holding quota while its admission checks have not all passed (Admitted is not True). */
  record Reserved(Reservation held) implements WorkloadPhase {
    @Override
    public Optional<Reservation> reservation() {
      return Optional.of(held);
    }
  }

  /**
   * Holding quota and Admitted: its pods run.
   *
   * @param admittedAt when Admitted last turned True (epoch millis; 0 if unknown), the start of its
   *     maximum execution time and of its wait for ready pods
   */
  record Admitted(Reservation held, long admittedAt) implements WorkloadPhase {
    @Override
    public Optional<Reservation> reservation() {
      return Optional.of(held);
    }
  }

  /** spec.active=false without quota: out of the queue until set active again. */
  record Deactivated() implements WorkloadPhase {}

  /**
   * Deactivated for too many PodsReady timeouts and set active again (waitForPodsReady only): out
   * of the queue until its requeueState is reset, else its next timeout would deactivate it at
   * once.
   */
  record AwaitingRequeueReset() implements WorkloadPhase {
    @Override
    public boolean queued() {
      return true;
    }
  }

  /**
   * Requeued with status.requeueState.requeueAt still ahead: not a candidate before then.
   *
   * @param until requeueAt (epoch millis)
   */
  record BackingOff(long until) implements WorkloadPhase {
    @Override
    public boolean queued() {
      return true;
    }
  }

  /** Waiting in its queue for quota: new, or back after an eviction cleared its admission. */
  record Pending() implements WorkloadPhase {
    @Override
    public boolean queued() {
      return true;
    }
  }
}
