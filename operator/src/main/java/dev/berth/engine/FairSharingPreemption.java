package dev.berth.engine;

import dev.berth.engine.flavor.Assignment;
import dev.berth.engine.model.PreemptionPolicy;
import dev.berth.engine.model.PreemptionPolicy.ReclaimWithinCohort;
import dev.berth.engine.model.PreemptionPolicy.WithinClusterQueue;
import dev.berth.engine.quota.QuotaNode;
import dev.berth.engine.quota.QuotaTree;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The PreemptionPlanner of fair sharing (Kueue's fair preemption with its preemption strategies).
 * Candidates are as in {@link ClassicalPreemption}: own workloads allowed by withinClusterQueue,
 * other queues' workloads allowed by reclaimWithinCohort, taken only while their queue borrows on a
 * needed flavor-resource. Until the preemptor fits (borrowing allowed), the queue with the highest
 * weighted share among those with candidates gives one: its own queue gives its next candidate
 * unconditionally (InClusterQueue); another queue gives its first candidate (lowest priority, most
 * recently admitted) that the first {@link FairSharingStrategy} allows (InCohortFairSharing), and a
 * queue with no such candidate drops out. If the preemptor still does not fit, a second strategy
 * (LessThanInitialShare) goes once more over the candidates the first refused, one per queue. In a
 * cohort tree the two shares are compared at the level below their lowest common cohort, where the
 * cohorts' weights count. Unneeded victims are then given back.
 *
 * <p>No circles: A takes B's workload y for its workload x only if share(A + x) ≤ share(B − y) (or
 * share(A + x) < share(B)); for y to take x back, share(B) ≤ share(A) (or share(B) < share(A + x)),
 * which contradicts share(B) ≥ share(B − y) ≥ share(A + x) > share(A) whenever x moves A's share.
 */
public final class FairSharingPreemption implements PreemptionPlanner {
  /** Kueue's default: the final-share rule, then the initial-share rule. */
  public static final List<FairSharingStrategy> DEFAULT_STRATEGIES =
      List.of(
          FairSharingStrategy.LessThanOrEqualToFinalShare,
          FairSharingStrategy.LessThanInitialShare);

  private final List<FairSharingStrategy> strategies;

  /** With {@link #DEFAULT_STRATEGIES}. */
  public FairSharingPreemption() {
    this(DEFAULT_STRATEGIES);
  }

  /**
   * With these strategies in order: one of them, or LessThanOrEqualToFinalShare then
   * LessThanInitialShare (the lists Kueue allows).
   */
  public FairSharingPreemption(List<FairSharingStrategy> strategies) {
    if (!allowed(strategies)) {
      throw new IllegalArgumentException(
          "fair-sharing preemption strategies must be one of "
              + List.of(
                  List.of(FairSharingStrategy.LessThanOrEqualToFinalShare),
                  List.of(FairSharingStrategy.LessThanInitialShare),
                  DEFAULT_STRATEGIES)
              + ", got "
              + strategies);
    }
    this.strategies = List.copyOf(strategies);
  }

  /**
   * Whether the list is one Kueue allows: a single strategy, or both with the final share first.
   */
  public static boolean allowed(List<FairSharingStrategy> strategies) {
    return strategies != null
        && (strategies.size() == 1 || strategies.equals(DEFAULT_STRATEGIES))
        && strategies.stream().allMatch(java.util.Objects::nonNull);
  }

  public List<FairSharingStrategy> strategies() {
    return strategies;
  }

  @Override
  public List<String> victims(PreemptionContext context) {
    return plan(context).stream().map(Victim::uid).toList();
  }

  @Override
  public List<Victim> plan(PreemptionContext ctx) {
    Entry e = ctx.preemptor();
    ClusterQueueState own = e.queue;
    Assignment a = e.assignment;
    if (a.frs() == null || own.spec == null || own.node == null) {
      return List.of();
    }
    PreemptionPolicy policy = own.spec.preemption();
    int[] frs = a.frs();
    long[] need = a.usage();
    boolean[] needed = new boolean[frs.length];
    boolean any = false;
    for (int i = 0; i < frs.length; i++) {
      if (need[i] > QuotaTree.available(own.node, frs[i])) {
        needed[i] = true;
        any = true;
      }
    }
    if (!any) {
      return List.of();
    }
    Comparator<AdmittedWorkload> order = ClassicalPreemption.candidateOrder(own.name);
    // Per queue, its candidates in victim order (lowest priority, newest first).
    Map<ClusterQueueState, Deque<AdmittedWorkload>> byQueue = new LinkedHashMap<>();
    for (ClusterQueueState q : ctx.treeQueues()) {
      boolean isOwn = q == own;
      if (isOwn
          ? policy.withinClusterQueue() == WithinClusterQueue.Never
          : policy.reclaimWithinCohort() == ReclaimWithinCohort.Never || q.node == null) {
        continue;
      }
      List<AdmittedWorkload> list = new ArrayList<>();
      for (AdmittedWorkload w : q.admitted.values()) {
        if (!NeededFlavorResources.usesNeeded(w, frs, needed)) {
          continue;
        }
        boolean allowed =
            isOwn
                ? ClassicalPreemption.withinClusterQueue(policy.withinClusterQueue(), w, e)
                : ClassicalPreemption.reclaimWithinCohort(policy.reclaimWithinCohort(), w, e);
        // choosable last: it notes a fresh admission that would have been a candidate.
        if (allowed && ctx.choosable(w)) {
          list.add(w);
        }
      }
      if (!list.isEmpty()) {
        list.sort(order);
        byQueue.put(q, new ArrayDeque<>(list));
      }
    }
    Taking t = new Taking(ctx, own, a, frs, need, needed);
    Map<ClusterQueueState, Deque<AdmittedWorkload>> refused = new LinkedHashMap<>();
    boolean fits = t.byShare(byQueue, strategies.get(0), refused);
    if (!fits && strategies.size() > 1) {
      fits = t.belowInitialShare(refused);
    }
    if (fits) {
      // As long as the share rule still holds for the victims kept (giving back an own victim
      // raises the preemptor's share).
      SimulatedRemoval.giveBackUnneeded(
          ctx,
          t.taken,
          i ->
              ClassicalPreemption.fits(own.node, frs, need, true)
                  && shareRuleHolds(ctx, own, a, t.taken, t.byInitialShare, i));
    }
    return SimulatedRemoval.restoreAndName(
        ctx, t.taken, own.name, PreemptionReason.InCohortFairSharing, fits);
  }

  /** The victims taken so far for one preemptor, on the simulated tree. */
  private static final class Taking {
    final PreemptionContext ctx;
    final ClusterQueueState own;
    final Assignment a;
    final int[] frs;
    final long[] need;
    final boolean[] needed;
    final List<AdmittedWorkload> taken = new ArrayList<>();

    /** Victims taken by the initial-share rule (the rule to keep when giving back). */
    final Set<AdmittedWorkload> byInitialShare = new HashSet<>();

    Taking(
        PreemptionContext ctx,
        ClusterQueueState own,
        Assignment a,
        int[] frs,
        long[] need,
        boolean[] needed) {
      this.ctx = ctx;
      this.own = own;
      this.a = a;
      this.frs = frs;
      this.need = need;
      this.needed = needed;
    }

    /**
     * The first strategy: one victim at a time from the queue of highest share, until the preemptor
     * fits. Candidates the strategy refuses go to {@code refused}, by queue.
     */
    boolean byShare(
        Map<ClusterQueueState, Deque<AdmittedWorkload>> byQueue,
        FairSharingStrategy strategy,
        Map<ClusterQueueState, Deque<AdmittedWorkload>> refused) {
      while (!byQueue.isEmpty()) {
        ClusterQueueState target = highestShare(ctx, byQueue.keySet(), own, a);
        Deque<AdmittedWorkload> candidates = byQueue.get(target);
        boolean took = false;
        if (target == own) {
          take(candidates.poll(), false);
          took = true;
        } else {
          QuotaNode below = belowCommonCohort(target.node, own.node);
          long preemptorShare =
              preemptorShare(ctx, own, a, belowCommonCohort(own.node, target.node));
          // Weight 0 while borrowing: never favoured, so it takes nothing from other queues.
          while (preemptorShare != Long.MAX_VALUE && !candidates.isEmpty()) {
            AdmittedWorkload w = candidates.poll();
            if (!NeededFlavorResources.borrowsOnNeeded(target.node, w, frs, needed)) {
              continue;
            }
            long initial = share(ctx, below);
            SimulatedRemoval.remove(ctx, w);
            boolean allowed =
                strategy == FairSharingStrategy.LessThanInitialShare
                    ? preemptorShare < initial
                    : preemptorShare <= share(ctx, below);
            if (allowed) {
              taken.add(w);
              if (strategy == FairSharingStrategy.LessThanInitialShare) {
                byInitialShare.add(w);
              }
              took = true;
              break;
            }
            SimulatedRemoval.restore(ctx, w);
            refused.computeIfAbsent(target, q -> new ArrayDeque<>()).add(w);
          }
          if (!took) {
            candidates.clear();
          }
        }
        if (candidates.isEmpty()) {
          byQueue.remove(target);
        }
        if (took && ClassicalPreemption.fits(own.node, frs, need, true)) {
          return true;
        }
      }
      return false;
    }

    /**
     * The second strategy, LessThanInitialShare, over what the first refused: from each queue in
     * order of share, its first candidate if the preemptor's share stays below the queue's; each
     * queue is visited once.
     */
    boolean belowInitialShare(Map<ClusterQueueState, Deque<AdmittedWorkload>> refused) {
      while (!refused.isEmpty()) {
        ClusterQueueState target = highestShare(ctx, refused.keySet(), own, a);
        Deque<AdmittedWorkload> candidates = refused.remove(target);
        long preemptorShare = preemptorShare(ctx, own, a, belowCommonCohort(own.node, target.node));
        if (preemptorShare == Long.MAX_VALUE
            || preemptorShare >= share(ctx, belowCommonCohort(target.node, own.node))) {
          continue;
        }
        for (AdmittedWorkload w : candidates) {
          if (NeededFlavorResources.borrowsOnNeeded(target.node, w, frs, needed)) {
            take(w, true);
            if (ClassicalPreemption.fits(own.node, frs, need, true)) {
              return true;
            }
            break;
          }
        }
      }
      return false;
    }

    private void take(AdmittedWorkload w, boolean initialShare) {
      SimulatedRemoval.remove(ctx, w);
      taken.add(w);
      if (initialShare) {
        byInitialShare.add(w);
      }
    }
  }

  /**
   * The queue to take from next: the highest share (another queue's at the level below its common
   * cohort with the preemptor's, the preemptor's own with the preemptor admitted), other queues
   * before the preemptor's own on a tie, then by name.
   */
  private static ClusterQueueState highestShare(
      PreemptionContext ctx,
      Iterable<ClusterQueueState> queues,
      ClusterQueueState own,
      Assignment a) {
    ClusterQueueState best = null;
    long bestShare = -1;
    for (ClusterQueueState q : queues) {
      long s =
          q == own
              ? DominantResourceShare.of(own, ctx.flavorResources(), a.frs(), a.usage())
              : share(ctx, belowCommonCohort(q.node, own.node));
      if (best == null
          || s > bestShare
          || (s == bestShare && (best == own || (q != own && q.name.compareTo(best.name) < 0)))) {
        best = q;
        bestShare = s;
      }
    }
    return best;
  }

  /**
   * After giving back taken[skip]: for every other-queue victim kept, its strategy still allows it
   * (preemptor share ≤ its queue's share without it, or < its queue's share with it).
   */
  private static boolean shareRuleHolds(
      PreemptionContext ctx,
      ClusterQueueState own,
      Assignment a,
      List<AdmittedWorkload> taken,
      Set<AdmittedWorkload> byInitialShare,
      int skip) {
    for (int k = 0; k < taken.size(); k++) {
      AdmittedWorkload w = taken.get(k);
      if (k == skip || w.clusterQueue.equals(own.name)) {
        continue;
      }
      QuotaNode target = ctx.queue(w.clusterQueue).node;
      long preemptorShare = preemptorShare(ctx, own, a, belowCommonCohort(own.node, target));
      QuotaNode level = belowCommonCohort(target, own.node);
      if (byInitialShare.contains(w)
          ? preemptorShare
              >= DominantResourceShare.of(level, ctx.flavorResources(), target, w.frs, w.usage)
          : preemptorShare > share(ctx, level)) {
        return false;
      }
    }
    return true;
  }

  /** The share of the preemptor's ancestor {@code level} with the preemptor admitted. */
  private static long preemptorShare(
      PreemptionContext ctx, ClusterQueueState own, Assignment a, QuotaNode level) {
    if (level == own.node) {
      return DominantResourceShare.of(own, ctx.flavorResources(), a.frs(), a.usage());
    }
    return DominantResourceShare.of(level, ctx.flavorResources(), own.node, a.frs(), a.usage());
  }

  /** The weighted share of a ClusterQueue node, or of a cohort node, in its parent. */
  private static long share(PreemptionContext ctx, QuotaNode node) {
    if (!node.isCohort()) {
      return DominantResourceShare.of(ctx.queue(node.name()), ctx.flavorResources(), null, null);
    }
    return DominantResourceShare.ofCohort(node, ctx.flavorResources());
  }

  /**
   * The ancestor of {@code node} (or itself) whose parent is the lowest cohort above both nodes.
   */
  static QuotaNode belowCommonCohort(QuotaNode node, QuotaNode other) {
    for (QuotaNode n = node; n.parent() != null; n = n.parent()) {
      for (QuotaNode o = other; o != null; o = o.parent()) {
        if (o == n.parent()) {
          return n;
        }
      }
    }
    return node;
  }
}
