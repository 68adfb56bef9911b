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
