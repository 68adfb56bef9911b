package dev.berth.engine.model;

/**
 * At most {@code count} workloads evicted for a ClusterQueue's preemptors in any {@code
 * windowMillis}: a bound on the churn one queue causes.
 */
public record PreemptionLimit(int count, long windowMillis) {
  public PreemptionLimit {
    if (count < 0 || windowMillis < 1) {
      throw new IllegalArgumentException(
          "a preemption limit needs count >= 0 and a window of at least 1 ms");
    }
  }
}
