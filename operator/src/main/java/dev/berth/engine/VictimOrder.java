package dev.berth.engine;

import java.util.Comparator;

/**
 * The order in which a preemption planner offers admitted workloads as victims, cheapest to lose
 * first:
 *
 * <ol>
 *   <li>workloads on idle capacity (admitted while their budget was spent, {@link
 *       AdmittedWorkload#onIdleCapacity}), whatever their priority;
 *   <li>workloads of other ClusterQueues before the preemptor's own;
 *   <li>lowest priority first;
 *   <li>those that wrote a checkpoint within their ClusterQueue's checkpoint window (a restart
 *       loses at most that window's work);
 *   <li>those that ran least: the most recently admitted first (the run a preemption throws away);
 *   <li>UID, so that the order is total and the same in every cycle.
 * </ol>
 *
 * A planner still applies its own rules (policy, borrowing, shares) to each candidate in turn; the
 * order only says which it tries first.
 */
final class VictimOrder {
  private VictimOrder() {}

  static Comparator<AdmittedWorkload> of(String ownQueue, PreemptionContext ctx) {
    long now = ctx.now();
    return Comparator.<AdmittedWorkload>comparingInt(w -> w.onIdleCapacity != null ? 0 : 1)
        .thenComparingInt(w -> w.clusterQueue.equals(ownQueue) ? 1 : 0)
        .thenComparingInt(w -> w.workload.priority())
        .thenComparingInt(w -> checkpointedRecently(w, ctx, now) ? 0 : 1)
        .thenComparing(
            Comparator.<AdmittedWorkload>comparingLong(w -> w.admission.admittedAt()).reversed())
        .thenComparing(w -> w.workload.uid());
  }

  /**
   * Whether it checkpointed within its queue's window before {@code now} (a checkpoint time after
   * now, a clock skew, counts as now).
   */
  static boolean checkpointedRecently(AdmittedWorkload w, PreemptionContext ctx, long now) {
    if (w.checkpointAt == Long.MIN_VALUE) {
      return false;
    }
    long window = ctx.checkpointWindowMillis(w.clusterQueue);
    return window > 0 && now - w.checkpointAt <= window;
  }
}
