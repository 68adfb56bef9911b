package dev.berth.engine.usage;

import java.util.List;

/**
 * A Workload version as the usage ledger reads it. Times are epoch milliseconds from the stored
 * conditions: {@code reservedAt} the QuotaReserved=True transition (null when no quota is
 * reserved), {@code releasedAt} the QuotaReserved=False transition, {@code finishedAt} the
 * Finished=True transition (null while unfinished), {@code lastCountedRunStart} the start of the
 * last run its durable record already counts.
 */
public record WorkloadObservation(
    String uid,
    String name,
    UsageOwner owner,
    Long reservedAt,
    Long releasedAt,
    Long finishedAt,
    List<UsageRequest> requests,
    Long lastCountedRunStart) {

  public WorkloadObservation {
    requests = List.copyOf(requests);
  }
}
