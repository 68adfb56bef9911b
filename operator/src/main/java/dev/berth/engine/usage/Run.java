package dev.berth.engine.usage;

import java.util.List;

/**
 * One quota reservation of a workload: from {@code start} to {@code end} (epoch ms; null while it
 * holds quota), with what it reserved.
 */
public record Run(
    String uid, String name, UsageOwner owner, long start, Long end, List<UsageRequest> requests) {

  public Run {
    requests = List.copyOf(requests);
  }

  Run endedAt(long at) {
    return new Run(uid, name, owner, start, Math.max(start, at), requests);
  }
}
