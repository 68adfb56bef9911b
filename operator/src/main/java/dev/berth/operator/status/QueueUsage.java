package dev.berth.operator.status;

import dev.berth.engine.QueueCounts;
import java.util.Map;

/** The latest per-ClusterQueue counts, published by the loop for readers on other threads. */
public final class QueueUsage {
  private volatile Map<String, QueueCounts> counts = Map.of();

  public void publish(Map<String, QueueCounts> latest) {
    counts = Map.copyOf(latest);
  }

  public int reservingWorkloads(String clusterQueue) {
    QueueCounts c = counts.get(clusterQueue);
    return c == null ? 0 : c.reserving();
  }
}
