package dev.berth.engine;

import dev.berth.engine.model.Workload;

/** A workload holding quota: what it was admitted as and what to give back on release. */
final class AdmittedWorkload {
  final Workload workload;
  final String clusterQueue;
  final String localQueueKey;
  final int[] frs;
  final long[] usage;
  final Admission admission;
  boolean evictionRequested;

  AdmittedWorkload(Workload workload, String clusterQueue, int[] frs, long[] usage, Admission admission) {
    this.workload = workload;
    this.clusterQueue = clusterQueue;
    this.localQueueKey = workload.localQueueKey();
    this.frs = frs;
    this.usage = usage;
    this.admission = admission;
  }
}
