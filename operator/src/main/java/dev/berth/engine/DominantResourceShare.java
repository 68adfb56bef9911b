package dev.berth.engine;

import dev.berth.engine.quota.FlavorResources;
import dev.berth.engine.quota.QuotaNode;
import dev.berth.engine.quota.QuotaTree;
import java.util.HashMap;
import java.util.Map;

/**
 * The weighted dominant-resource share of a node of the cohort tree (a ClusterQueue or a cohort) in
 * its parent, as Kueue's fair sharing defines it: per resource (summed over flavors), what the node
 * uses beyond its subtree's quota divided by what its parent could ever lend it ({@link
 * QuotaTree#potentialAvailable} of the parent), in thousandths; the largest of these, divided by
 * the node's weight. So a cohort's weight counts at its own level of the tree: it competes with its
 * siblings, not with the ClusterQueues below it. 0 for a root or while not borrowing; weight 0
 * while borrowing ranks last ({@link Long#MAX_VALUE}).
 */
final class DominantResourceShare {
  private DominantResourceShare() {}

  /** The share with {@code extra} usage added on {@code extraFrs} (e.g. a candidate admission). */
  static long of(ClusterQueueState cq, FlavorResources frs, int[] extraFrs, long[] extra) {
    if (cq.node == null || cq.spec == null) {
      return 0;
    }
    return of(cq.node, frs, cq.node, extraFrs, extra);
  }

  /** The share of a cohort as it is. */
  static long ofCohort(QuotaNode cohort, FlavorResources frs) {
    return of(cohort, frs, cohort, null, null);
  }

  /**
   * The share of {@code node} with {@code extra} usage added at {@code from}, which is {@code node}
   * or a ClusterQueue below it: what of the extra reaches {@code node} is worked out as {@link
   * QuotaTree#addUsage} would store it, level by level, without changing the tree.
   */
  static long of(
      QuotaNode node, FlavorResources frs, QuotaNode from, int[] extraFrs, long[] extra) {
    QuotaNode pool = node.parent();
    if (pool == null || !node.active()) {
      return 0;
    }
    Map<String, long[]> byResource = null;
    for (int fr = 0; fr < frs.size(); fr++) {
      long added = extraFrs == null ? 0 : reaching(node, from, fr, extraFor(fr, extraFrs, extra));
      long borrowed = Math.max(0, node.usage(fr) + added - node.subtreeQuota(fr));
      if (borrowed == 0) {
        continue;
      }
      if (byResource == null) {
        byResource = new HashMap<>();
      }
      long[] t = byResource.computeIfAbsent(frs.resource(fr), r -> new long[2]);
      t[0] += borrowed;
    }
    if (byResource == null) {
      return 0;
    }
    // What the parent could lend, per resource over all its flavors (borrowed or not).
    for (int fr = 0; fr < frs.size(); fr++) {
      long[] t = byResource.get(frs.resource(fr));
      if (t != null) {
        t[1] += QuotaTree.potentialAvailable(pool, fr);
      }
    }
    long share = 0;
    for (long[] t : byResource.values()) {
      share = Math.max(share, t[1] <= 0 ? Long.MAX_VALUE : Math.multiplyExact(t[0], 1000L) / t[1]);
    }
    long weight = node.fairWeight();
    if (share == 0) {
      return 0;
    }
    if (weight == 0 || share == Long.MAX_VALUE) {
      return Long.MAX_VALUE;
    }
    return Math.multiplyExact(share, 1000L) / weight;
  }

  /**
   * Of {@code value} added at {@code from}, the part that {@code node}'s usage grows by; at {@code
   * node} itself, all of it (negative: usage taken away).
   */
  private static long reaching(QuotaNode node, QuotaNode from, int fr, long value) {
    if (from == node) {
      return value;
    }
    for (QuotaNode n = from; n != node && n != null && value > 0; n = n.parent()) {
      value -= Math.max(0, n.guaranteed(fr) - n.usage(fr));
    }
    return Math.max(0, value);
  }

  private static long extraFor(int fr, int[] frs, long[] amounts) {
    if (frs == null) {
      return 0;
    }
    long sum = 0;
    for (int i = 0; i < frs.length; i++) {
      if (frs[i] == fr) {
        sum += amounts[i];
      }
    }
    return sum;
  }
}
