package dev.berth.engine;

import dev.berth.engine.model.Explanation;
import dev.berth.engine.model.PendingReason;

/**
 * Why a workload is pending: the reason of its QuotaReserved=False condition, the whole explanation
 * ({@code message}, for an Event) and its one-line form under 200 characters ({@code summary}, for
 * the condition and the wide columns). {@code clusterQueue} is null while its LocalQueue does not
 * exist.
 */
public record PendingStatus(
    String workloadUid, String clusterQueue, PendingReason reason, String message, String summary) {

  PendingStatus(String workloadUid, String clusterQueue, Explanation why) {
    this(workloadUid, clusterQueue, why.reason(), why.message(), why.summary());
  }
}
