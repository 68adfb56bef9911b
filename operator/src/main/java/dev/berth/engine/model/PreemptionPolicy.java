package dev.berth.engine.model;

/**
 * The preemption settings of a ClusterQueue. Flavor assignment uses them to decide whether a flavor
 * that does not fit could fit by preemption (mode Preempt); ClassicalPreemption uses them to choose
 * the victims. {@code checkpointWindowMillis}: a workload of this queue that checkpointed within it
 * is a cheaper victim than one of the same priority that did not (null: {@link
 * #DEFAULT_CHECKPOINT_WINDOW_MILLIS}; 0: checkpoints do not count).
 */
public record PreemptionPolicy(
    WithinClusterQueue withinClusterQueue,
    ReclaimWithinCohort reclaimWithinCohort,
    BorrowWithinCohort borrowWithinCohort,
    Integer borrowMaxPriorityThreshold,
    Long checkpointWindowMillis) {
  /** Ten minutes: a checkpoint that recent loses little work on a restart. */
  public static final long DEFAULT_CHECKPOINT_WINDOW_MILLIS = 600_000;

  public static final PreemptionPolicy NEVER =
      new PreemptionPolicy(
          WithinClusterQueue.Never, ReclaimWithinCohort.Never, BorrowWithinCohort.Never, null);

  /** With the default checkpoint window. */
  public PreemptionPolicy(
      WithinClusterQueue withinClusterQueue,
      ReclaimWithinCohort reclaimWithinCohort,
      BorrowWithinCohort borrowWithinCohort,
      Integer borrowMaxPriorityThreshold) {
    this(
        withinClusterQueue,
        reclaimWithinCohort,
        borrowWithinCohort,
        borrowMaxPriorityThreshold,
        DEFAULT_CHECKPOINT_WINDOW_MILLIS);
  }

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
    checkpointWindowMillis =
        checkpointWindowMillis == null ? DEFAULT_CHECKPOINT_WINDOW_MILLIS : checkpointWindowMillis;
    if (checkpointWindowMillis < 0) {
      throw new IllegalArgumentException(
          "checkpointWindowMillis must not be negative: " + checkpointWindowMillis);
    }
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
