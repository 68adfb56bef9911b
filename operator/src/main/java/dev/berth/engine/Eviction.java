package dev.berth.engine;

/**
 * A request to evict an admitted workload. The engine keeps its quota until the operator reports
 * the eviction done ({@link AdmissionEngine#workloadEvicted}), as pods may still be running.
 */
public record Eviction(String workloadUid, String clusterQueue, EvictionReason reason, String message) {}
