package dev.berth.engine.usage;

import java.math.BigDecimal;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * One namespace's usage in one calendar month: every run that ended in the month, summed per
 * LocalQueue, ClusterQueue, cost centre, flavor and resource, and which workloads' runs are counted
 * (each with its last counted run's start, so a run is added exactly once: runs of one workload are
 * added in the order they started).
 */
public record MonthlyUsage(int runs, Map<Key, Sums> entries, Map<String, Counted> counted) {

  /** Where a run's usage is billed, and of what. */
  public record Key(
      String localQueue, String clusterQueue, String costCentre, String flavor, String resource) {}

  /**
   * @param measuredResourceSeconds the part of resourceSeconds of runs the DCGM join measured
   * @param usedResourceSeconds devices actually busy × seconds over those runs
   */
  public record Sums(
      int runs,
      BigDecimal resourceSeconds,
      BigDecimal measuredResourceSeconds,
      BigDecimal usedResourceSeconds) {
    static final Sums NONE = new Sums(0, BigDecimal.ZERO, BigDecimal.ZERO, BigDecimal.ZERO);

    Sums plus(Sums o) {
      return new Sums(
          runs + o.runs,
          resourceSeconds.add(o.resourceSeconds),
          measuredResourceSeconds.add(o.measuredResourceSeconds),
          usedResourceSeconds.add(o.usedResourceSeconds));
    }
  }

  /** A workload's last counted run. */
  public record Counted(String workload, long runStart) {}

  public MonthlyUsage {
    entries = Collections.unmodifiableMap(new LinkedHashMap<>(entries));
    counted = Collections.unmodifiableMap(new LinkedHashMap<>(counted));
  }

  public static MonthlyUsage none() {
    return new MonthlyUsage(0, Map.of(), Map.of());
  }

  public boolean counts(Run run) {
    Counted c = counted.get(run.uid());
    return c != null && run.start() <= c.runStart();
  }

  /**
   * This month with an ended run added, or unchanged if it already counts it.
   *
   * @param used device-seconds used per podSet, flavor and resource, for the requests the DCGM join
   *     measured; a request absent here was not measured
   */
  public MonthlyUsage plus(Run run, Map<UsageTotals.Key, BigDecimal> used) {
    if (run.end() == null) {
      throw new IllegalArgumentException("run of " + run.name() + " has not ended");
    }
    if (counts(run)) {
      return this;
    }
    BigDecimal seconds = UsageTotals.seconds(run.end() - run.start());
    UsageOwner o = run.owner();
    Map<Key, Sums> add = new LinkedHashMap<>();
    for (UsageRequest r : run.requests()) {
      Key key = new Key(o.localQueue(), o.clusterQueue(), o.costCentre(), r.flavor(), r.resource());
      BigDecimal requested = UsageTotals.natural(r.resource(), r.amount()).multiply(seconds);
      BigDecimal u = used.get(new UsageTotals.Key(r.podSet(), r.flavor(), r.resource()));
      add.merge(
          key,
          new Sums(
              0,
              requested,
              u == null ? BigDecimal.ZERO : requested,
              u == null ? BigDecimal.ZERO : u),
          Sums::plus);
    }
    Map<Key, Sums> out = new LinkedHashMap<>(entries);
    // A run counts once per entry however many of its podSets requested the resource there.
    add.forEach(
        (key, sums) ->
            out.merge(
                key,
                new Sums(
                    1,
                    sums.resourceSeconds(),
                    sums.measuredResourceSeconds(),
                    sums.usedResourceSeconds()),
                Sums::plus));
    Map<String, Counted> c = new LinkedHashMap<>(counted);
    c.put(run.uid(), new Counted(run.name(), run.start()));
    return new MonthlyUsage(runs + 1, out, c);
  }

  /** Without the counted entries of these workloads (whose own records already hold the run). */
  public MonthlyUsage forgetting(Set<String> uids) {
    Map<String, Counted> c = new LinkedHashMap<>(counted);
    c.keySet().removeAll(uids);
    return new MonthlyUsage(runs, entries, c);
  }

  /** The {@code n} counted workloads with the oldest runs: the first candidates to forget. */
  public Set<String> oldestCounted(int n) {
    Set<String> out = new LinkedHashSet<>();
    counted.entrySet().stream()
        .sorted(Map.Entry.comparingByValue(java.util.Comparator.comparingLong(Counted::runStart)))
        .limit(n)
        .forEach(e -> out.add(e.getKey()));
    return out;
  }

  /** Σ resourceSeconds (or used) of a resource over all entries. */
  public BigDecimal total(String resource, boolean usedOnly) {
    BigDecimal sum = BigDecimal.ZERO;
    for (var e : entries.entrySet()) {
      if (e.getKey().resource().equals(resource)) {
        sum =
            sum.add(usedOnly ? e.getValue().usedResourceSeconds() : e.getValue().resourceSeconds());
      }
    }
    return sum;
  }

  /** Whether any entry of the resource was measured. */
  public boolean measured(String resource) {
    return entries.entrySet().stream()
        .anyMatch(
            e ->
                e.getKey().resource().equals(resource)
                    && e.getValue().measuredResourceSeconds().signum() > 0);
  }
}
