package dev.berth.operator.budget;

import dev.berth.engine.usage.Run;
import dev.berth.engine.usage.UsageRequest;
import dev.berth.engine.usage.UsageTotals;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One budget's current window: what its ended runs were charged (the durable part, kept in its
 * status) and which workloads' runs are charged already, so that a run offered twice (by the ledger
 * and by the Workload's own record, or after a restart) is charged once. A run is charged for the
 * part of it inside the window: requested amount × overlapping seconds. Loop thread only.
 */
final class BudgetAccount {
  final BudgetTarget target;

  /** Limit per resource, in resource-seconds. */
  final Map<String, BigDecimal> limits;

  final BudgetWindow window;
  private BudgetWindow.Span span;

  /** Resource-seconds of ended runs inside the window, per limited resource. */
  private final Map<String, BigDecimal> ended = new LinkedHashMap<>();

  /** Per workload UID, the start (epoch ms) of the last ended run charged. */
  private final Map<String, Long> counted = new HashMap<>();

  BudgetAccount(
      BudgetTarget target,
      Map<String, BigDecimal> limits,
      BudgetWindow window,
      BudgetWindow.Span span) {
    this.target = target;
    this.limits = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(limits));
    this.window = window;
    this.span = span;
  }

  BudgetWindow.Span span() {
    return span;
  }

  /** Moves to the window {@code now} is in; a new window starts with nothing charged. */
  boolean roll(Instant now) {
    if (span.contains(now)) {
      return false;
    }
    span = window.at(now);
    ended.clear();
    counted.clear();
    return true;
  }

  /** The durable record of this window, as a restarted operator reads it back from status. */
  void restore(Map<String, BigDecimal> endedSeconds, Map<String, Long> countedRuns) {
    endedSeconds.forEach((r, s) -> ended.merge(r, s, BigDecimal::max));
    countedRuns.forEach((uid, start) -> counted.merge(uid, start, Math::max));
  }

  /** Charges an ended run once; false when it is not this budget's or was charged already. */
  boolean charge(Run run) {
    if (run.end() == null || !target.charges(run.owner())) {
      return false;
    }
    Long last = counted.get(run.uid());
    if (last != null && run.start() <= last) {
      return false;
    }
    BigDecimal seconds = overlapSeconds(run.start(), run.end());
    if (seconds.signum() <= 0) {
      return false;
    }
    counted.put(run.uid(), run.start());
    add(run, seconds, ended);
    return true;
  }

  /** Ended runs' charges plus the running ones' time so far in the window, per resource. */
  Map<String, BigDecimal> used(Collection<Run> open, Instant now) {
    Map<String, BigDecimal> used = new LinkedHashMap<>();
    for (String resource : limits.keySet()) {
      used.put(resource, ended.getOrDefault(resource, BigDecimal.ZERO));
    }
    for (Run run : open) {
      if (!target.charges(run.owner())) {
        continue;
      }
      Long last = counted.get(run.uid());
      if (last != null && run.start() <= last) {
        continue;
      }
      BigDecimal seconds = overlapSeconds(run.start(), Math.max(run.start(), now.toEpochMilli()));
      if (seconds.signum() > 0) {
        add(run, seconds, used);
      }
    }
    return used;
  }

  Map<String, BigDecimal> endedSeconds() {
    return Map.copyOf(ended);
  }

  Map<String, Long> countedRuns() {
    return Map.copyOf(counted);
  }

  private void add(Run run, BigDecimal seconds, Map<String, BigDecimal> into) {
    for (UsageRequest r : run.requests()) {
      if (limits.containsKey(r.resource())) {
        into.merge(
            r.resource(),
            UsageTotals.natural(r.resource(), r.amount()).multiply(seconds),
            BigDecimal::add);
      }
    }
  }

  private BigDecimal overlapSeconds(long start, long end) {
    long from = Math.max(start, span.start().toEpochMilli());
    long to = Math.min(end, span.end().toEpochMilli());
    return to <= from ? BigDecimal.ZERO : UsageTotals.seconds(to - from);
  }
}
