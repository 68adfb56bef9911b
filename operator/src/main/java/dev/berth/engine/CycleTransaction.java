package dev.berth.engine;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What one admission cycle changed in the engine, so that a cycle that throws part-way leaves
 * nothing behind (as Armada's scheduler aborts its cycle transaction and Volcano's Statement
 * discards its operations). Quota usage and the preemption bookkeeping are saved when the cycle
 * begins; admissions, topology placements and eviction requests are journalled as they happen.
 * {@link #abort()} undoes them all and rebuilds the quota tree, which also unparks and re-marks
 * every queue, so the next cycle decides everything again from the restored state.
 */
final class CycleTransaction {
  private final AdmissionEngine engine;
  private final Map<ClusterQueueState, long[]> usage = new HashMap<>();
  private final Map<ClusterQueueState, Saved> preemptions = new HashMap<>();
  private final Map<String, PendingPreemption> preemptionOfVictim;
  private final List<AdmittedWorkload> admitted = new ArrayList<>();
  private final Set<String> placed = new LinkedHashSet<>();
  private final List<AdmittedWorkload> evictionMarks = new ArrayList<>();
  private final Set<String> newExpectations = new LinkedHashSet<>();

  /** A pending preemption's mutable fields as they were when the cycle began. */
  private record Saved(
      PendingPreemption p,
      List<String> outstanding,
      List<AdmittedWorkload> held,
      int[] reservedFrs,
      long[] reserved,
      boolean ready) {}

  CycleTransaction(AdmissionEngine engine, Map<String, PendingPreemption> preemptionOfVictim) {
    this.engine = engine;
    this.preemptionOfVictim = new HashMap<>(preemptionOfVictim);
    for (ClusterQueueState cq : engine.queues().values()) {
      usage.put(cq, cq.usage.clone());
      PendingPreemption p = cq.preemption;
      if (p != null) {
        preemptions.put(
            cq,
            new Saved(
                p,
                List.copyOf(p.outstanding),
                List.copyOf(p.held),
                p.reservedFrs,
                p.reserved,
                p.ready));
      }
    }
  }

  void placed(String uid) {
    placed.add(uid);
  }

  void admitted(AdmittedWorkload a) {
    admitted.add(a);
  }

  void evictionMarked(AdmittedWorkload a) {
    evictionMarks.add(a);
  }

  void expectationAdded(String uid) {
    newExpectations.add(uid);
  }

  /** Puts the engine back as it was before the cycle. */
  void abort(Map<String, PendingPreemption> liveVictimMap, Map<String, Eviction> expectations) {
    for (int i = admitted.size() - 1; i >= 0; i--) {
      engine.unadmit(admitted.get(i));
    }
    for (String uid : placed) {
      engine.releasePlacement(uid);
    }
    for (AdmittedWorkload a : evictionMarks) {
      a.evictionRequested = false;
    }
    for (String uid : newExpectations) {
      expectations.remove(uid);
    }
    for (ClusterQueueState cq : engine.queues().values()) {
      Saved s = preemptions.get(cq);
      cq.preemption = s == null ? null : s.p;
      if (s != null) {
        s.p.outstanding.clear();
        s.p.outstanding.addAll(s.outstanding);
        s.p.held.clear();
        s.p.held.addAll(s.held);
        s.p.reservedFrs = s.reservedFrs;
        s.p.reserved = s.reserved;
        s.p.ready = s.ready;
      }
      long[] saved = usage.get(cq);
      if (saved != null) {
        // The node shares this array: restore in place, cohort usage follows on the rebuild.
        java.util.Arrays.fill(cq.usage, 0);
        System.arraycopy(saved, 0, cq.usage, 0, Math.min(saved.length, cq.usage.length));
      }
    }
    liveVictimMap.clear();
    liveVictimMap.putAll(preemptionOfVictim);
    engine.rebuildTree();
  }
}
