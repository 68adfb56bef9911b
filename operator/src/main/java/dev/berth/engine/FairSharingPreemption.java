package dev.berth.engine;

import dev.berth.engine.flavor.Assignment;
import dev.berth.engine.model.PreemptionPolicy;
import dev.berth.engine.model.PreemptionPolicy.ReclaimWithinCohort;
import dev.berth.engine.model.PreemptionPolicy.WithinClusterQueue;
import dev.berth.engine.quota.QuotaNode;
import dev.berth.engine.quota.QuotaTree;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashSet;
import java.util.IdentityHashMap;
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
 * <p>No two workloads go in a circle: A takes B's workload y for its workload x only if share(A +
 * x) ≤ share(B − y) (or share(A + x) < share(B)); for y to take x back, share(B) ≤ share(A) (or
 * share(B) < share(A + x)), which contradicts share(B) ≥ share(B − y) ≥ share(A + x) > share(A)
 * whenever x moves A's share. Chains through other workloads of the same queues are not covered by
 * that argument: a victim that leaves its queue under nominal quota the preemptor borrows is
 * refused ({@code opensReclaim}). LessThanInitialShare, alone or after the final-share rule, still
 * loops that way, so the operator's configuration refuses it ({@code MinimumRuntimeProperties}
 * looks for loops and keeps one as an example).
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
    Comparator<AdmittedWorkload> order = VictimOrder.of(own.name, ctx);
    // Per queue, its candidates in victim order (lowest priority, newest first); the own queue's
    // first, for the bound below.
    Map<ClusterQueueState, Deque<AdmittedWorkload>> byQueue = new LinkedHashMap<>();
    if (policy.withinClusterQueue() != WithinClusterQueue.Never) {
      addCandidates(ctx, own, own, frs, needed, order, byQueue);
    }
    long lowestOwnShare = lowestOwnShare(ctx, own, a, byQueue.get(own));
    for (ClusterQueueState q : ctx.treeQueues()) {
      if (q == own
          || policy.reclaimWithinCohort() == ReclaimWithinCohort.Never
          || q.node == null
          // Another queue gives workloads only while it borrows on a needed flavor-resource, and
          // planning only lowers its usage.
          || !NeededFlavorResources.borrowsOnNeeded(q.node, frs, needed)) {
        continue;
      }
      if (belowCommonCohort(own.node, q.node) == own.node
          && lowestOwnShare > share(ctx, belowCommonCohort(q.node, own.node))) {
        // Compared at the preemptor's own level, whose share can fall no lower than with all its
        // own candidates gone, and a queue's share only falls as victims go: neither rule will
        // ever let this queue give a victim, so its workloads need not be looked at.
        continue;
      }
      addCandidates(ctx, own, q, frs, needed, order, byQueue);
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
     * Per queue: its share at the level below its common cohort with the preemptor's (the
     * preemptor's own queue: with the preemptor admitted), and the preemptor's share at the same
     * level. Only taking a victim moves a share, so the cache is dropped then; a planning pass that
     * takes nothing computes each queue's shares once.
     */
    private final Map<ClusterQueueState, long[]> shares = new IdentityHashMap<>();

    /**
     * The first strategy: one victim at a time from the queue of highest share, until the preemptor
     * fits. Candidates the strategy refuses go to {@code refused}, by queue.
     */
    boolean byShare(
        Map<ClusterQueueState, Deque<AdmittedWorkload>> byQueue,
        FairSharingStrategy strategy,
        Map<ClusterQueueState, Deque<AdmittedWorkload>> refused) {
      List<ClusterQueueState> line = byShareDescending(byQueue.keySet());
      int next = 0;
      while (next < line.size()) {
        ClusterQueueState target = line.get(next);
        Deque<AdmittedWorkload> candidates = byQueue.get(target);
        boolean took = false;
        if (target == own) {
          take(candidates.poll(), false);
          took = true;
        } else {
          QuotaNode below = belowCommonCohort(target.node, own.node);
          long[] s = sharesOf(target);
          long initial = s[0];
          long preemptorShare = s[1];
          // Weight 0 while borrowing: never favoured, so it takes nothing from other queues.
          // Above the queue's share no candidate passes either rule: a removal never raises it.
          boolean hopeless = preemptorShare == Long.MAX_VALUE || preemptorShare > initial;
          while (!hopeless && !candidates.isEmpty()) {
            AdmittedWorkload w = candidates.poll();
            if (!NeededFlavorResources.borrowsOnNeeded(target.node, w, frs, needed)) {
              continue;
            }
            SimulatedRemoval.remove(ctx, w);
            boolean allowed =
                (strategy == FairSharingStrategy.LessThanInitialShare
                        ? preemptorShare < initial
                        : preemptorShare <= share(ctx, below))
                    && !opensReclaim(target);
            SimulatedRemoval.restore(ctx, w);
            if (allowed) {
              take(w, strategy == FairSharingStrategy.LessThanInitialShare);
              took = true;
              break;
            }
            refused.computeIfAbsent(target, q -> new ArrayDeque<>()).add(w);
          }
          if (!took) {
            refused.computeIfAbsent(target, q -> new ArrayDeque<>()).addAll(candidates);
            candidates.clear();
          }
        }
        if (candidates.isEmpty()) {
          byQueue.remove(target);
          next++;
        }
        if (took) {
          if (ClassicalPreemption.fits(own.node, frs, need, true)) {
            return true;
          }
          // The victim moved shares: the queues left go in their new order.
          line = byShareDescending(byQueue.keySet());
          next = 0;
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
      List<ClusterQueueState> line = byShareDescending(refused.keySet());
      for (int next = 0; next < line.size(); next++) {
        ClusterQueueState target = line.get(next);
        Deque<AdmittedWorkload> candidates = refused.remove(target);
        long[] s = sharesOf(target);
        if (s[1] == Long.MAX_VALUE || s[1] >= s[0]) {
          continue;
        }
        for (AdmittedWorkload w : candidates) {
          if (!NeededFlavorResources.borrowsOnNeeded(target.node, w, frs, needed)) {
            continue;
          }
          SimulatedRemoval.remove(ctx, w);
          boolean reclaimable = opensReclaim(target);
          SimulatedRemoval.restore(ctx, w);
          if (!reclaimable) {
            take(w, true);
            if (ClassicalPreemption.fits(own.node, frs, need, true)) {
              return true;
            }
            line = byShareDescending(refused.keySet());
            next = -1;
            break;
          }
        }
      }
      return false;
    }

    /**
     * With a victim removed: whether its queue would use less than its nominal quota of a needed
     * flavor-resource on which the preemptor would borrow. Its own workloads could then reclaim
     * that quota from the preemptor at once, and, with a priority preemption inside its queue, take
     * turns with the preemptor for ever (the preemption loop of Kueue issue 14543). Reclaiming
     * nominal quota is always allowed; borrowing quota its owner can take straight back is not.
     */
    private boolean opensReclaim(ClusterQueueState target) {
      for (int i = 0; i < frs.length; i++) {
        int fr = frs[i];
        if (needed[i]
            && target.node.usage(fr) < target.node.nominal(fr)
            && own.node.usage(fr) + need[i] > own.node.nominal(fr)) {
          return true;
        }
      }
      return false;
    }

    private void take(AdmittedWorkload w, boolean initialShare) {
      SimulatedRemoval.remove(ctx, w);
      taken.add(w);
      shares.clear();
      if (initialShare) {
        byInitialShare.add(w);
      }
    }

    private long[] sharesOf(ClusterQueueState q) {
      long[] s = shares.get(q);
      if (s == null) {
        s =
            q == own
                ? new long[] {
                  DominantResourceShare.of(own, ctx.flavorResources(), a.frs(), a.usage()), 0
                }
                : new long[] {
                  share(ctx, belowCommonCohort(q.node, own.node)),
                  preemptorShare(ctx, own, a, belowCommonCohort(own.node, q.node))
                };
        shares.put(q, s);
      }
      return s;
    }

    /**
     * The queues in the order they give victims: the highest share first (another queue's at the
     * level below its common cohort with the preemptor's, the preemptor's own with the preemptor
     * admitted), other queues before the preemptor's own on a tie, then by name. Sorted once per
     * pass and again after each victim taken, not searched for each victim.
     */
    private List<ClusterQueueState> byShareDescending(Collection<ClusterQueueState> queues) {
      List<ClusterQueueState> line = new ArrayList<>(queues);
      line.sort(
          Comparator.<ClusterQueueState>comparingLong(q -> -sharesOf(q)[0])
              .thenComparing(q -> q == own)
              .thenComparing(q -> q.name));
      return line;
    }
  }

  /** Adds q's workloads that policy lets the preemptor take, in victim order, to byQueue. */
  private static void addCandidates(
      PreemptionContext ctx,
      ClusterQueueState own,
      ClusterQueueState q,
      int[] frs,
      boolean[] needed,
      Comparator<AdmittedWorkload> order,
      Map<ClusterQueueState, Deque<AdmittedWorkload>> byQueue) {
    Entry e = ctx.preemptor();
    PreemptionPolicy policy = own.spec.preemption();
    List<AdmittedWorkload> list = new ArrayList<>();
    for (AdmittedWorkload w : q.admitted.values()) {
      if (!NeededFlavorResources.usesNeeded(w, frs, needed)) {
        continue;
      }
      boolean allowed =
          q == own
              ? ClassicalPreemption.withinClusterQueue(policy.withinClusterQueue(), w, e)
              : ClassicalPreemption.reclaimWithinCohort(policy.reclaimWithinCohort(), w, e)
                  && !ctx.protectedFromOtherQueues(w);
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

  /**
   * The preemptor's share at its own queue's level with every own candidate gone: the lowest it can
   * reach in this plan ({@link Long#MAX_VALUE} for weight 0 while borrowing). Worked out without
   * touching the tree, whose every change would make the cycle re-check its entries.
   */
  private static long lowestOwnShare(
      PreemptionContext ctx,
      ClusterQueueState own,
      Assignment a,
      Deque<AdmittedWorkload> ownCandidates) {
    if (ownCandidates == null) {
      return DominantResourceShare.of(own, ctx.flavorResources(), a.frs(), a.usage());
    }
    int n = a.frs().length;
    for (AdmittedWorkload w : ownCandidates) {
      n += w.frs.length;
    }
    int[] frs = java.util.Arrays.copyOf(a.frs(), n);
    long[] change = java.util.Arrays.copyOf(a.usage(), n);
    int k = a.frs().length;
    for (AdmittedWorkload w : ownCandidates) {
      for (int i = 0; i < w.frs.length; i++, k++) {
        frs[k] = w.frs[i];
        change[k] = -w.usage[i];
      }
    }
    return DominantResourceShare.of(own, ctx.flavorResources(), frs, change);
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
