package dev.berth.engine;

import dev.berth.engine.model.AdmissionFairSharing;
import dev.berth.engine.queue.DecayedUsage;
import dev.berth.engine.queue.LocalQueueState;
import dev.berth.engine.queue.PendingQueue;
import dev.berth.engine.quota.FlavorResources;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Admission fair sharing's bookkeeping (Kueue's AFS usage ledger): each LocalQueue's decayed recent
 * usage, sampled from its admitted workloads on the operator's interval, the entry penalty of what
 * the cycle admits in between, and the score that orders LocalQueues in a ClusterQueue with {@code
 * admissionScope.admissionMode: UsageBasedAdmissionFairSharing} ({@link
 * PendingQueue#orderByUsage}). Only LocalQueues of such ClusterQueues are sampled.
 */
final class LocalQueueUsage {
  private final PendingQueues pending;
  private final QuotaStore quota;
  private AdmissionFairSharing settings = AdmissionFairSharing.DEFAULT;

  LocalQueueUsage(PendingQueues pending, QuotaStore quota) {
    this.pending = pending;
    this.quota = quota;
  }

  AdmissionFairSharing settings() {
    return settings;
  }

  void settings(AdmissionFairSharing settings) {
    this.settings = settings;
    pending.localQueues().forEach(this::rescore);
  }

  /**
   * A usage stored in the LocalQueue's status (at start-up): taken when newer than what the engine
   * holds, so the operator's own status writes, read back, change nothing.
   */
  void restore(String namespace, String name, Map<String, BigDecimal> consumed, long at) {
    LocalQueueState lq = pending.localQueue(namespace, name);
    if (at <= lq.consumedAt()) {
      return;
    }
    lq.consumed(consumed, at);
    rescoreAndLookAgain(lq);
  }

  /**
   * Folds the admitted usage of every LocalQueue of a ClusterQueue that orders by usage into its
   * decayed usage; penalties are dropped, as the admissions they stood for are now counted. Returns
   * the keys of the LocalQueues sampled.
   */
  List<String> sample(long now) {
    Map<LocalQueueState, Map<String, BigDecimal>> current = new HashMap<>();
    for (ClusterQueueState cq : quota.queues().values()) {
      if (!cq.queue.orderByUsage()) {
        continue;
      }
      for (AdmittedWorkload a : cq.admitted.values()) {
        current.merge(a.localQueue, requests(a), DecayedUsage::plus);
      }
    }
    List<String> sampled = new ArrayList<>();
    Set<ClusterQueueState> changed = new LinkedHashSet<>();
    for (LocalQueueState lq : pending.localQueues()) {
      ClusterQueueState cq = lq.spec() == null ? null : quota.find(lq.spec().clusterQueue());
      if (cq == null || !cq.queue.orderByUsage()) {
        continue;
      }
      // Never sampled: the first sample is what runs now (α = 1).
      long elapsed = lq.consumedAt() == Long.MIN_VALUE ? Long.MAX_VALUE : now - lq.consumedAt();
      lq.consumed(
          DecayedUsage.decay(
              lq.consumed(),
              current.getOrDefault(lq, Map.of()),
              elapsed,
              settings.halfLifeMillis()),
          now);
      lq.penalty(Map.of());
      if (rescore(lq)) {
        changed.add(cq);
      }
      sampled.add(lq.key());
    }
    changed.forEach(pending::lookAgain);
    return sampled;
  }

  /** An admission in a ClusterQueue that orders by usage charges its LocalQueue's penalty. */
  void admitted(AdmittedWorkload a, CycleTransaction tx) {
    LocalQueueState lq = a.localQueue;
    tx.penaltyChanged(lq);
    lq.penalty(DecayedUsage.plus(lq.penalty(), DecayedUsage.entryPenalty(requests(a), settings)));
    // The cycle nominates the queue's next head itself: no need to mark it.
    rescore(lq);
  }

  /** Recomputes a LocalQueue's score (its weight or usage changed); true if it changed. */
  boolean rescore(LocalQueueState lq) {
    long weight = lq.spec() == null ? 1000L : lq.spec().fairSharingWeight();
    double score =
        DecayedUsage.score(DecayedUsage.plus(lq.consumed(), lq.penalty()), settings, weight);
    boolean changed = Double.compare(score, lq.score()) != 0;
    PendingQueue.rescore(lq, score);
    return changed;
  }

  void rescoreAndLookAgain(LocalQueueState lq) {
    if (rescore(lq) && lq.spec() != null) {
      pending.lookAgain(quota.queue(lq.spec().clusterQueue()));
    }
  }

  /** What an admitted workload holds, per resource in base units, summed over flavors. */
  private Map<String, BigDecimal> requests(AdmittedWorkload a) {
    FlavorResources frs = quota.flavorResources();
    Map<String, BigDecimal> out = new TreeMap<>();
    for (int i = 0; i < a.frs.length; i++) {
      String resource = frs.resource(a.frs[i]);
      out.merge(resource, DecayedUsage.baseUnits(resource, a.usage[i]), BigDecimal::add);
    }
    return out;
  }
}
