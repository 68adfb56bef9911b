package dev.berth.engine;

/**
 * Workload counts of a ClusterQueue or LocalQueue for status and metrics. Without admission checks,
 * reserving and admitted are equal.
 */
public record QueueCounts(int pendingActive, int pendingInadmissible, int reserving, int admitted) {
  public int pending() {
    return pendingActive + pendingInadmissible;
  }
}
