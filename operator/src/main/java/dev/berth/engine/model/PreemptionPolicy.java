package dev.berth.engine.model;

/**
 * The preemption settings of a ClusterQueue. Flavor assignment uses them to decide whether a flavor
 * that does not fit could fit by preemption (mode Preempt); ClassicalPreemption uses them to choose
 * the victims.
 */
public record PreemptionPolicy(
    WithinClusterQueue withinClusterQueue,
    ReclaimWithinCohort reclaimWithinCohort,
    BorrowWithinCohort borrowWithinCohort,
    Integer borrowMaxPriorityThreshold) {
  public static final PreemptionPolicy NEVER =
      new PreemptionPolicy(
          WithinClusterQueue.Never, ReclaimWithinCohort.Never, BorrowWithinCohort.Never, null);

  /** preemption.withinClusterQueue. */
  public enum WithinClusterQueue {
    Never,
    LowerPriority,
    LowerOrNewerEqualPriority
  }

  /** preemption.reclaimWithinCohort. */
  public enum ReclaimWithinCohort {
    Never,
    LowerPriority,
    Any
  }

  /** preemption.borrowWithinCohort.policy. */
  public enum BorrowWithinCohort {
    Never,
    LowerPriority
  }

  public PreemptionPolicy {
    withinClusterQueue = withinClusterQueue == null ? WithinClusterQueue.Never : withinClusterQueue;
    reclaimWithinCohort =
        reclaimWithinCohort == null ? ReclaimWithinCohort.Never : reclaimWithinCohort;
    borrowWithinCohort = borrowWithinCohort == null ? BorrowWithinCohort.Never : borrowWithinCohort;
  }

  /** Whether preempting could free nominal quota (own lower-priority workloads or lent quota). */
  public boolean canPreemptWithinNominal() {
    return withinClusterQueue != WithinClusterQueue.Never
        || reclaimWithinCohort != ReclaimWithinCohort.Never;
  }

  /** Whether the queue may preempt while it would itself borrow. */
  public boolean canPreemptWhileBorrowing() {
    return borrowWithinCohort != BorrowWithinCohort.Never
        && reclaimWithinCohort != ReclaimWithinCohort.Never;
  }
}
