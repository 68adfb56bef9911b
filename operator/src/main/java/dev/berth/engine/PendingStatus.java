package dev.berth.engine;

import dev.berth.engine.model.PendingReason;

/**
 * Why a workload is pending (the QuotaReserved=False condition) and where it stands:
 * position 0 is the head of its ClusterQueue; -1 when not in a ClusterQueue's queue.
 */
public record PendingStatus(String workloadUid, String clusterQueue, PendingReason reason, String message) {}
