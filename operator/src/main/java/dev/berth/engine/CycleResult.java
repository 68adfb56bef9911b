package dev.berth.engine;

import java.util.List;
import java.util.Map;

/**
 * What one admission cycle decided: admissions to write, evictions to perform, and why the pending
 * workloads it looked at still wait. A plain value, computed when the cycle ended: later engine
 * calls do not change it.
 */
public final class CycleResult {
  private final List<Admission> admissions;
  private final List<Eviction> evictions;
  private final List<Eviction> newEvictions;
  private final PendingReasons pendingReasons;
  private final int evaluations;
  private final long protectionEndsAt;

  CycleResult(
      List<Admission> admissions,
      List<Eviction> evictions,
      List<Eviction> newEvictions,
      PendingReasons pendingReasons,
      int evaluations,
      long protectionEndsAt) {
    this.protectionEndsAt = protectionEndsAt;
    this.admissions = List.copyOf(admissions);
    this.evictions = List.copyOf(evictions);
    this.newEvictions = List.copyOf(newEvictions);
    this.pendingReasons = pendingReasons;
    this.evaluations = evaluations;
  }

  public List<Admission> admissions() {
    return admissions;
  }

  /**
   * Every eviction to perform: those asked for in this cycle and those asked for earlier that the
   * operator has not yet seen done ({@link AdmissionEngine#evictionObserved}). Write them all.
   */
  public List<Eviction> evictions() {
    return evictions;
  }

  /** The evictions asked for the first time since the previous cycle (to count them once). */
  public List<Eviction> newEvictions() {
    return newEvictions;
  }

  /**
   * When a preemptor that found nothing to take could first take a workload now held by its queue's
   * minimum runtime (engine time), or {@link Long#MAX_VALUE}: run a cycle then, since nothing else
   * may happen by that time to bring one.
   */
  public long protectionEndsAt() {
    return protectionEndsAt;
  }

  /** How many flavor assignments the cycle computed (cost indicator for metrics). */
  public int evaluations() {
    return evaluations;
  }

  /** Reasons of the workloads this cycle looked at and left pending, by UID, as the cycle ended. */
  public Map<String, PendingStatus> pendingReasons() {
    return pendingReasons.byUid();
  }
}
