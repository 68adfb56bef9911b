package dev.berth.engine;

/**
 * When fair-sharing preemption may take a workload of another ClusterQueue (Kueue's
 * preemptionStrategies). Shares are compared at the level below the two queues' lowest common
 * cohort, the preemptor's with the preemptor admitted.
 */
public enum FairSharingStrategy {
  /**
   * The preemptor's share stays at or below the target's share without the victim: may prefer small
   * victims, whatever their priority, to keep the target's share high.
   */
  LessThanOrEqualToFinalShare,

  /**
   * The preemptor's share stays strictly below the target's share as it is: does not depend on the
   * victim, so victims go in the usual order (lowest priority, most recently admitted).
   */
  LessThanInitialShare
}
