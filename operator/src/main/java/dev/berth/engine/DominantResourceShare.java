package dev.berth.engine;

import dev.berth.engine.quota.FlavorResources;
import dev.berth.engine.quota.QuotaNode;
import java.util.HashMap;
import java.util.Map;

/**
 * The weighted dominant-resource share of a ClusterQueue in its cohort, as Kueue's fair sharing
 * defines it: per resource (summed over flavors), what the queue borrows beyond its nominal quota
 * divided by what its cohort can lend, in thousandths; the largest of these, divided by the queue's
 * weight. 0 without a cohort or while not borrowing; weight 0 while borrowing ranks last ({@link
 * Long#MAX_VALUE}).
 */
final class DominantResourceShare {
  private DominantResourceShare() {}

  /** The share with {@code extra} usage added on {@code extraFrs} (e.g. a candidate admission). */
  static long of(ClusterQueueState cq, FlavorResources frs, int[] extraFrs, long[] extra) {
    QuotaNode node = cq.node;
    if (node == null || node.parent() == null || cq.spec == null) {
      return 0;
    }
    QuotaNode pool = node.parent();
    Map<String, long[]> byResource = new HashMap<>();
    for (int fr = 0; fr < frs.size(); fr++) {
      long usage = cq.usage(fr) + extraFor(fr, extraFrs, extra);
      long borrowed = Math.max(0, usage - node.nominal(fr));
      long lendable = pool.subtreeQuota(fr);
      if (borrowed == 0 && lendable == 0) {
        continue;
      }
      long[] t = byResource.computeIfAbsent(frs.resource(fr), r -> new long[2]);
      t[0] += borrowed;
      t[1] += lendable;
    }
    long share = 0;
    for (long[] t : byResource.values()) {
      if (t[0] == 0) {
        continue;
      }
      share = Math.max(share, t[1] == 0 ? Long.MAX_VALUE : Math.multiplyExact(t[0], 1000L) / t[1]);
    }
    long weight = cq.spec.fairSharingWeight();
    if (share == 0) {
      return 0;
    }
    if (weight == 0 || share == Long.MAX_VALUE) {
      return Long.MAX_VALUE;
    }
    return Math.multiplyExact(share, 1000L) / weight;
  }

  /**
   * The share of a cohort in its parent: per resource, what the cohort draws beyond its own pool
   * ({@code usage - subtreeQuota}, i.e. above the nominal of its subtree that it did not lend) over
   * the parent's pool; the largest over resources, weight 1. 0 for a root.
   */
  static long ofCohort(QuotaNode cohort, FlavorResources frs) {
    QuotaNode pool = cohort.parent();
    if (pool == null) {
      return 0;
    }
    Map<String, long[]> byResource = new HashMap<>();
    for (int fr = 0; fr < frs.size(); fr++) {
      long borrowed = Math.max(0, cohort.usage(fr) - cohort.subtreeQuota(fr));
      long lendable = pool.subtreeQuota(fr);
      if (borrowed == 0 && lendable == 0) {
        continue;
      }
      long[] t = byResource.computeIfAbsent(frs.resource(fr), r -> new long[2]);
      t[0] += borrowed;
      t[1] += lendable;
    }
    long share = 0;
    for (long[] t : byResource.values()) {
      if (t[0] != 0) {
        share =
            Math.max(share, t[1] == 0 ? Long.MAX_VALUE : Math.multiplyExact(t[0], 1000L) / t[1]);
      }
    }
    return share;
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
