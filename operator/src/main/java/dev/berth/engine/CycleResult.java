package dev.berth.engine;

import dev.berth.engine.queue.Bucket;
import dev.berth.engine.queue.PendingWorkload;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one admission cycle decided: admissions to write, evictions to perform, and the pending
 * workloads whose reason was (re)computed. Pending reasons are materialised on request from the
 * engine's current state, so read them before the next engine call.
 */
public final class CycleResult {
  private final List<Admission> admissions;
  private final List<Eviction> evictions;
  private final List<Bucket> touched;
  private final AdmissionEngine engine;
  private final int evaluations;
  private List<Eviction> newEvictions = List.of();

  CycleResult(
      List<Admission> admissions,
      List<Eviction> evictions,
      List<Bucket> touched,
      AdmissionEngine engine,
      int evaluations) {
    this.admissions = admissions;
    this.evictions = evictions;
    this.touched = touched;
    this.engine = engine;
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

  CycleResult withNewEvictions(List<Eviction> fresh) {
    this.newEvictions = fresh;
    return this;
  }

  /** How many flavor assignments the cycle computed (cost indicator for metrics). */
  public int evaluations() {
    return evaluations;
  }

  /** Reasons of the workloads this cycle looked at and left pending, by UID. */
  public Map<String, PendingStatus> pendingReasons() {
    Map<String, PendingStatus> out = new LinkedHashMap<>();
    for (Bucket b : touched) {
      for (PendingWorkload w : b.members()) {
        PendingStatus s = engine.status().pendingStatus(w.uid());
        if (s != null) {
          out.put(w.uid(), s);
        }
      }
    }
    return out;
  }
}
