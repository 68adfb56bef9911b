package dev.berth.engine;

import dev.berth.engine.queue.LocalQueueState;
import dev.berth.engine.queue.PendingQueue;
import dev.berth.engine.topology.TopologyState;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What one admission cycle changed in the engine's stores, so that a cycle that throws part-way
 * leaves nothing behind (as Armada's scheduler aborts its cycle transaction and Volcano's Statement
 * discards its operations). The quota store's usage and preemption bookkeeping are saved when the
 * cycle begins; admissions (taken out of the pending queues), topology placements and eviction
 * requests are journalled as they happen. {@link #abort()} undoes them all and rebuilds the quota
 * tree, which also unparks and re-marks every pending queue, so the next cycle decides everything
 * again from the restored state.
 */
final class CycleTransaction {
  private final QuotaStore quota;
  private final PendingQueues pending;
  private final TopologyState topology;
  private final EvictionExpectations expectations;
  private final Map<ClusterQueueState, long[]> usage = new HashMap<>();
  private final Map<ClusterQueueState, Saved> preemptions = new HashMap<>();
  private final Map<String, PendingPreemption> preemptionOfVictim;
  private final List<AdmittedWorkload> admitted = new ArrayList<>();
  private final Set<String> placed = new LinkedHashSet<>();
  private final List<AdmittedWorkload> evictionMarks = new ArrayList<>();
  private final Set<String> newExpectations = new LinkedHashSet<>();
  private final Map<LocalQueueState, SavedPenalty> penalties = new HashMap<>();

  /** A LocalQueue's entry penalty and score as they were when the cycle began. */
  private record SavedPenalty(Map<String, BigDecimal> penalty, double score) {}

  /** A pending preemption's mutable fields as they were when the cycle began. */
  private record Saved(
      PendingPreemption p,
      List<String> outstanding,
      List<AdmittedWorkload> held,
      int[] reservedFrs,
      long[] reserved,
      boolean ready) {}

  CycleTransaction(
      QuotaStore quota,
      PendingQueues pending,
      TopologyState topology,
      EvictionExpectations expectations) {
    this.quota = quota;
    this.pending = pending;
    this.topology = topology;
    this.expectations = expectations;
    this.preemptionOfVictim = new HashMap<>(quota.preemptionOfVictim());
    for (ClusterQueueState cq : quota.queues().values()) {
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

  /** Call before the cycle first changes the LocalQueue's entry penalty. */
  void penaltyChanged(LocalQueueState lq) {
    penalties.computeIfAbsent(lq, k -> new SavedPenalty(k.penalty(), k.score()));
  }

  void expectationAdded(String uid) {
    newExpectations.add(uid);
  }

  /** Puts the stores back as they were before the cycle. */
  void abort() {
    for (int i = admitted.size() - 1; i >= 0; i--) {
      // Usage is not given back here: it is restored as a whole below.
      AdmittedWorkload a = admitted.get(i);
      quota.unhold(a);
      topology.release(a.workload.uid());
      pending.add(a.workload);
    }
    for (String uid : placed) {
      topology.release(uid);
    }
    for (AdmittedWorkload a : evictionMarks) {
      a.evictionRequested = false;
    }
    expectations.forgetAll(newExpectations);
    penalties.forEach(
        (lq, saved) -> {
          lq.penalty(saved.penalty());
          PendingQueue.rescore(lq, saved.score());
        });
    for (ClusterQueueState cq : quota.queues().values()) {
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
        Arrays.fill(cq.usage, 0);
        System.arraycopy(saved, 0, cq.usage, 0, Math.min(saved.length, cq.usage.length));
      }
    }
    quota.preemptionOfVictim().clear();
    quota.preemptionOfVictim().putAll(preemptionOfVictim);
    quota.rebuildTree();
  }
}
