package dev.berth.engine;

import dev.berth.engine.model.PendingReason;

/**
 * Why a workload is pending: the reason and message of its QuotaReserved=False condition.
 * {@code clusterQueue} is null while its LocalQueue does not exist.
 */
public record PendingStatus(String workloadUid, String clusterQueue, PendingReason reason, String message) {}
