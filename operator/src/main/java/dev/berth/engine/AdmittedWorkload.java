package dev.berth.engine;

import dev.berth.engine.model.Workload;
import dev.berth.engine.queue.LocalQueueState;

/** A workload holding quota: what it was admitted as and what to give back on release. */
final class AdmittedWorkload {
  final Workload workload;
  final String clusterQueue;
  final LocalQueueState localQueue;
  final int[] frs;
  final long[] usage;
  final Admission admission;
  boolean evictionRequested;

  /** Its eviction was seen as a reclaim, and its queue's borrowing paused for it (once). */
  boolean reclaimSeen;

  /**
   * Why it runs on idle capacity (admitted while a budget of its LocalQueue was spent, under
   * RunOnIdleCapacity), or null: such a workload is every preemptor's first victim.
   */
  String onIdleCapacity;

  /** When it last wrote a checkpoint (epoch millis), or Long.MIN_VALUE: never, as far as known. */
  long checkpointAt = Long.MIN_VALUE;

  AdmittedWorkload(
      Workload workload,
      String clusterQueue,
      LocalQueueState localQueue,
      int[] frs,
      long[] usage,
      Admission admission) {
    this.workload = workload;
    this.clusterQueue = clusterQueue;
    this.localQueue = localQueue;
    this.frs = frs;
    this.usage = usage;
    this.admission = admission;
  }
}
