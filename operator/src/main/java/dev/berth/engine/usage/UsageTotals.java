package dev.berth.engine.usage;

import dev.berth.engine.quota.Quantity;
import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A workload's durable usage: runs counted, who the last one was billed to (null before any),
 * occupied time, and per podSet, flavor and resource the amount last requested and requested ×
 * seconds in the resource's natural unit. Exact (BigDecimal): a year of 1 TiB is far beyond a
 * long's byte-seconds.
 */
public record UsageTotals(
    int runs,
    UsageOwner owner,
    Long lastRunStart,
    Long lastRunEnd,
    BigDecimal occupiedSeconds,
    Map<Key, Long> requested,
    Map<Key, BigDecimal> resourceSeconds) {

  /** One podSet's resource in one flavor. */
  public record Key(String podSet, String flavor, String resource) {}

  public UsageTotals {
    requested = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(requested));
    resourceSeconds = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(resourceSeconds));
  }

  public static UsageTotals none() {
    return new UsageTotals(0, null, null, null, BigDecimal.ZERO, Map.of(), Map.of());
  }

  /** Whether this record already counts the run (its start is not after the last counted one). */
  public boolean counts(Run run) {
    return lastRunStart != null && run.start() <= lastRunStart;
  }

  /** These totals with an ended run added. */
  public UsageTotals plus(Run run) {
    if (run.end() == null) {
      throw new IllegalArgumentException("run of " + run.name() + " has not ended");
    }
    BigDecimal seconds = seconds(run.end() - run.start());
    Map<Key, Long> req = new LinkedHashMap<>(requested);
    Map<Key, BigDecimal> rs = new LinkedHashMap<>(resourceSeconds);
    for (UsageRequest r : run.requests()) {
      Key key = new Key(r.podSet(), r.flavor(), r.resource());
      req.put(key, r.amount());
      rs.merge(key, natural(r.resource(), r.amount()).multiply(seconds), BigDecimal::add);
    }
    return new UsageTotals(
        runs + 1, run.owner(), run.start(), run.end(), occupiedSeconds.add(seconds), req, rs);
  }

  public static BigDecimal seconds(long millis) {
    return BigDecimal.valueOf(millis).movePointLeft(3);
  }

  /** Canonical units to the natural one: cpu millicores to cores, the rest as they are. */
  public static BigDecimal natural(String resource, long canonical) {
    BigDecimal amount = BigDecimal.valueOf(canonical);
    return Quantity.isMilli(resource) ? amount.movePointLeft(3) : amount;
  }

  /** A decimal without exponent or trailing zeros ("5400", "1.5"). */
  public static String text(BigDecimal value) {
    BigDecimal stripped = value.stripTrailingZeros();
    return (stripped.scale() < 0 ? stripped.setScale(0) : stripped).toPlainString();
  }
}
