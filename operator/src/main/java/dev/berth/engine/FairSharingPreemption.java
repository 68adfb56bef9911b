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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The PreemptionPlanner of fair sharing (Kueue's fair preemption with the
 * LessThanOrEqualToFinalShare strategy). Candidates are as in {@link ClassicalPreemption}: own
 * workloads allowed by withinClusterQueue, other queues' workloads allowed by reclaimWithinCohort,
 * taken only while their queue borrows on a needed flavor-resource. Until the preemptor fits
 * (borrowing allowed), the queue with the highest weighted share among those with candidates gives
 * one: its own queue gives its next candidate unconditionally (InClusterQueue); another queue gives
 * its first candidate (lowest priority, most recently admitted) for which the preemptor's share
 * after admission stays at or below that queue's share without it (InCohortFairSharing), and a
 * queue with no such candidate drops out. In a cohort tree the two shares are compared at the level
 * below their lowest common cohort. Unneeded victims are then given back.
 *
 * <p>No circles: A takes B's workload y for its workload x only if share(A + x) ≤ share(B − y); for
 * y to take x back, share(B) ≤ share(A), which contradicts share(B) ≥ share(B − y) ≥ share(A + x) >
 * share(A) whenever x moves A's share.
 */
public final class FairSharingPreemption implements PreemptionPlanner {

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
    List<AdmittedWorkload> taken = new ArrayList<>();
    boolean fits = false;
    while (!byQueue.isEmpty()) {
      ClusterQueueState target = highestShare(ctx, byQueue.keySet(), own, a);
      Deque<AdmittedWorkload> candidates = byQueue.get(target);
      boolean took = false;
      if (target == own) {
        AdmittedWorkload w = candidates.poll();
        SimulatedRemoval.remove(ctx, w);
        taken.add(w);
        took = true;
      } else {
        QuotaNode below = belowCommonCohort(target.node, own.node);
        long preemptorShare = preemptorShare(ctx, own, a, belowCommonCohort(own.node, target.node));
        // Weight 0 while borrowing: never favoured, so it takes nothing from other queues.
        while (preemptorShare != Long.MAX_VALUE && !candidates.isEmpty()) {
          AdmittedWorkload w = candidates.poll();
          if (!NeededFlavorResources.borrowsOnNeeded(target.node, w, frs, needed)) {
            continue;
          }
          SimulatedRemoval.remove(ctx, w);
          if (preemptorShare <= share(ctx, below)) {
            taken.add(w);
            took = true;
            break;
          }
          SimulatedRemoval.restore(ctx, w);
        }
        if (!took) {
          candidates.clear();
        }
      }
      if (candidates.isEmpty()) {
        byQueue.remove(target);
      }
      if (took && ClassicalPreemption.fits(own.node, frs, need, true)) {
        fits = true;
        break;
      }
    }
    if (fits) {
      // As long as the share rule still holds for the victims kept (giving back an own victim
      // raises the preemptor's share).
      SimulatedRemoval.giveBackUnneeded(
          ctx,
          taken,
          i ->
              ClassicalPreemption.fits(own.node, frs, need, true)
                  && shareRuleHolds(ctx, own, a, taken, i));
    }
    return SimulatedRemoval.restoreAndName(
        ctx, taken, own.name, PreemptionReason.InCohortFairSharing, fits);
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
   * After giving back taken[skip]: for every other-queue victim kept, preemptor share ≤ its
   * queue's.
   */
  private static boolean shareRuleHolds(
      PreemptionContext ctx,
      ClusterQueueState own,
      Assignment a,
      List<AdmittedWorkload> taken,
      int skip) {
    for (int k = 0; k < taken.size(); k++) {
      AdmittedWorkload w = taken.get(k);
      if (k == skip || w.clusterQueue.equals(own.name)) {
        continue;
      }
      QuotaNode target = ctx.queue(w.clusterQueue).node;
      if (preemptorShare(ctx, own, a, belowCommonCohort(own.node, target))
          > share(ctx, belowCommonCohort(target, own.node))) {
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
    for (int i = 0; i < a.frs().length; i++) {
      QuotaTree.addUsage(own.node, a.frs()[i], a.usage()[i]);
    }
    long s = DominantResourceShare.ofCohort(level, ctx.flavorResources());
    for (int i = 0; i < a.frs().length; i++) {
      QuotaTree.removeUsage(own.node, a.frs()[i], a.usage()[i]);
    }
    return s;
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
