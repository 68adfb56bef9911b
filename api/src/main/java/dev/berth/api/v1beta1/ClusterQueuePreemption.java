package dev.berth.api.v1beta1;

import dev.berth.api.crd.Rule;

/** Which admitted workloads a pending one may evict to fit. */
@Rule(
    value =
        "!(has(self.reclaimWithinCohort) && self.reclaimWithinCohort == 'Never' && has(self.borrowWithinCohort) && has(self.borrowWithinCohort.policy) && self.borrowWithinCohort.policy != 'Never')",
    message = "reclaimWithinCohort=Never and borrowWithinCohort.policy!=Never cannot be combined")
public class ClusterQueuePreemption {
  public WithinClusterQueue withinClusterQueue;
  public ReclaimWithinCohort reclaimWithinCohort;
  public BorrowWithinCohort borrowWithinCohort;

  /**
   * Seconds each of this queue's admitted workloads runs before a workload of another queue may
   * preempt it (reclaimWithinCohort, borrowWithinCohort, fair sharing); a higher priority within
   * this queue (withinClusterQueue) still preempts at once. Absent or 0: no protection. Kueue has
   * no such field (its issues #477, #6861); whole seconds as an integer, like a Workload's {@code
   * maximumExecutionTimeSeconds}, because the policy fields beside it are plain values and a count
   * of seconds needs no duration syntax to read or to validate.
   */
  @io.fabric8.generator.annotation.Min(0)
  public Integer minimumRuntimeSeconds;

  /**
   * Seconds this queue admits nothing that borrows after quota it borrowed was taken back from it
   * (its workloads preempted by reclaimWithinCohort, borrowWithinCohort or fair sharing): without a
   * pause, the quota just freed for the lender is borrowed again by the next workload in line,
   * which the lender's next arrival preempts in turn. Workloads within nominal quota are admitted
   * as always. Absent or 0: no pause. Kueue has no such field (its issue #14468).
   */
  @io.fabric8.generator.annotation.Min(0)
  public Integer borrowBackoffAfterReclaimSeconds;

  /**
   * At most this many workloads evicted for this queue's preemptors in any window of time: a bound
   * on the churn one queue causes, in its own queue and in its cohort. A preemptor that would go
   * over waits until enough of the window's earlier preemptions are older than the window. Absent:
   * no bound. Kueue has none yet (its KEP on preemption limits, 16925).
   */
  public MaxPreemptions maxPreemptions;

  /**
   * Seconds for which a checkpoint (the Workload's annotation {@code
   * berth.dev/last-checkpoint-time}) makes one of this queue's workloads a cheaper preemption
   * victim than others of its priority: a restart then loses at most that much work. Absent: 600
   * (ten minutes); 0: checkpoints do not count. Kueue has no such field (its issue #6861).
   */
  @io.fabric8.generator.annotation.Min(0)
  public Integer checkpointWindowSeconds;

  /** {@code count} preemptions per {@code windowSeconds}. */
  public static class MaxPreemptions {
    @io.fabric8.generator.annotation.Required
    @io.fabric8.generator.annotation.Min(0)
    public Integer count;

    @io.fabric8.generator.annotation.Required
    @io.fabric8.generator.annotation.Min(1)
    public Integer windowSeconds;
  }

  /** Preemption among the queue's own workloads. */
  public enum WithinClusterQueue {
    Never,
    LowerPriority,
    LowerOrNewerEqualPriority
  }

  /** Taking back lent quota from borrowers in the cohort. */
  public enum ReclaimWithinCohort {
    Never,
    LowerPriority,
    Any
  }

  /** Preempting in the cohort while the preemptor itself borrows. */
  public static class BorrowWithinCohort {
    public Policy policy;

    /** Only workloads at or below this priority may be preempted. */
    public Integer maxPriorityThreshold;

    /** Whether borrowing preemptors may evict. */
    public enum Policy {
      Never,
      LowerPriority
    }
  }
}
