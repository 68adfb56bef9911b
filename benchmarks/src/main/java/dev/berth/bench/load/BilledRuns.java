package dev.berth.bench.load;

/**
 * A benchmark runner seen by the bill: how many of its runs have finished, and how many of its
 * Workloads carry their usage record. {@link Billing} and {@link LastWrite} wait on it, so that the
 * scale benchmark and the load benchmark bill the operator's CPU up to the same moment.
 */
interface BilledRuns {
  /** Runs (Workloads, Jobs) finished so far. */
  long finished();

  /** The runner's Workloads whose status.usage records their run. */
  long withUsageRecord();
}
