package dev.berth.engine;

import java.util.Map;

/**
 * One pending workload as the visibility API shows it: where it stands in its ClusterQueue
 * (0 = next) and in its LocalQueue, what it asks for in total (canonical units), and why it
 * waits (the one-line summary of its condition).
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
    String message) {}
