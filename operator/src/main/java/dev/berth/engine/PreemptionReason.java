package dev.berth.engine;

/** Reasons of the Preempted condition: why a workload was chosen as a victim. */
public enum PreemptionReason {
  /** To admit a workload of the same ClusterQueue (withinClusterQueue). */
  InClusterQueue,
  /** To give a ClusterQueue back nominal quota that another queue of the cohort borrowed. */
  InCohortReclamation,
  /** By a preemptor that itself borrows (borrowWithinCohort). */
  InCohortReclaimWhileBorrowing,
  /** To even out dominant-resource shares in the cohort (fair sharing). */
  InCohortFairSharing,
  /**
   * It ran on idle capacity while its budget was spent (Budget whenExhausted RunOnIdleCapacity),
   * and a workload within its budget needed the room. Berth only; Kueue has no budgets.
   */
  OnIdleCapacity
}
