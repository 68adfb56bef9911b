package dev.berth.engine;

import java.util.Map;

/**
 * One pending workload as the visibility API shows it: where it stands in its ClusterQueue (0 =
 * next) and in its LocalQueue, what it asks for in total (canonical units), and why it waits (the
 * one-line summary of its condition); when it is expected to start (epoch millis, null when unknown
 * or not yet estimated) and on what assumptions ({@link StartEstimate}).
 */
public record PendingEntry(
    String uid,
    String namespace,
    String name,
    String localQueue,
    String clusterQueue,
    int position,
    int localQueuePosition,
    int priority,
    Map<String, Long> requests,
    String reason,
    String message,
    Long estimatedStart,
    String estimateBasis) {

  /** Without an estimate. */
  public PendingEntry(
      String uid,
      String namespace,
      String name,
      String localQueue,
      String clusterQueue,
      int position,
      int localQueuePosition,
      int priority,
      Map<String, Long> requests,
      String reason,
      String message) {
    this(
        uid,
        namespace,
        name,
        localQueue,
        clusterQueue,
        position,
        localQueuePosition,
        priority,
        requests,
        reason,
        message,
        null,
        null);
  }
}
