package dev.berth.operator.metrics;

import dev.berth.engine.usage.Run;
import dev.berth.engine.usage.UsageLedger;
import dev.berth.engine.usage.UsageOwner;
import dev.berth.engine.usage.UsageRequest;
import dev.berth.engine.usage.UsageTotals;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Requested resources × seconds with quota reserved, as counters that grow while runs hold quota
 * (read at scrape time, so a quiet cluster's counters still move):
 *
 * <ul>
 *   <li>{@code berth_local_queue_resource_seconds_total{namespace,local_queue,flavor,resource,
 *       cost_centre}}
 *   <li>{@code berth_cluster_queue_resource_seconds_total{cluster_queue,flavor,resource}}
 *   <li>{@code berth_namespace_resource_seconds_total{namespace,flavor,resource,cost_centre}}
 * </ul>
 *
 * In the resource's natural unit (cores, bytes, devices). They count from this process's start: a
 * restarted operator resumes open runs from its own start, so that increase() over a restart counts
 * nothing twice; the exact per-workload total is the Workload's status.usage.
 */
public final class UsageMetrics {
  private final MeterRegistry registry;
  private final Clock clock;
  private final long startedAt;
  private final Map<Tags, Series> series = new ConcurrentHashMap<>();

  public UsageMetrics(MeterRegistry registry, Clock clock) {
    this.registry = registry;
    this.clock = clock;
    this.startedAt = clock.millis();
  }

  public void apply(UsageLedger.Event event) {
    if (event instanceof UsageLedger.Opened opened) {
      forEachSeries(
          opened.run(),
          (s, rate) -> s.open(opened.run().uid(), Math.max(opened.run().start(), startedAt), rate));
    } else if (event instanceof UsageLedger.Ended ended) {
      Run run = ended.run();
      forEachSeries(
          run, (s, rate) -> s.end(run.uid(), Math.max(run.start(), startedAt), run.end(), rate));
    }
  }

  private interface SeriesAction {
    void apply(Series series, double perSecond);
  }

  private void forEachSeries(Run run, SeriesAction action) {
    UsageOwner o = run.owner();
    Map<Tags, Double> rates = new HashMap<>();
    for (UsageRequest r : run.requests()) {
      double perSecond = UsageTotals.natural(r.resource(), r.amount()).doubleValue();
      Tags fr = Tags.of("flavor", r.flavor(), "resource", r.resource());
      rates.merge(
          Tags.of("name", "berth_local_queue_resource_seconds_total")
              .and(fr)
              .and(
                  "namespace",
                  o.namespace(),
                  "local_queue",
                  o.localQueue(),
                  "cost_centre",
                  o.costCentre()),
          perSecond,
          Double::sum);
      rates.merge(
          Tags.of("name", "berth_cluster_queue_resource_seconds_total")
              .and(fr)
              .and("cluster_queue", o.clusterQueue()),
          perSecond,
          Double::sum);
      rates.merge(
          Tags.of("name", "berth_namespace_resource_seconds_total")
              .and(fr)
              .and("namespace", o.namespace(), "cost_centre", o.costCentre()),
          perSecond,
          Double::sum);
    }
    rates.forEach((key, rate) -> action.apply(series.computeIfAbsent(key, this::register), rate));
  }

  private Series register(Tags key) {
    Series s = new Series(clock);
    String name =
        key.stream().filter(t -> t.getKey().equals("name")).findFirst().orElseThrow().getValue();
    Tags tags = Tags.of(key.stream().filter(t -> !t.getKey().equals("name")).toList());
    FunctionCounter.builder(name, s, Series::value)
        .description("Requested resources × seconds with quota reserved")
        .tags(tags)
        .register(registry);
    return s;
  }

  /**
   * One counter: the ended runs' resource-seconds plus the open runs' so far. Synchronized, so a
   * scrape never sees a run both ended and open, or neither.
   */
  static final class Series {
    private final Clock clock;
    private final Map<String, double[]> open = new HashMap<>();
    private double ended;
    private long lastRead;

    Series(Clock clock) {
      this.clock = clock;
    }

    synchronized void open(String uid, long from, double perSecond) {
      open.put(uid, new double[] {from, perSecond});
    }

    synchronized void end(String uid, long from, long to, double perSecond) {
      boolean wasOpen = open.remove(uid) != null;
      // Never below what a scrape already saw of an open run: the counter must not go down.
      long until = wasOpen ? Math.max(to, Math.min(lastRead, clock.millis())) : to;
      if (until > from) {
        ended += perSecond * (until - from) / 1000.0;
      }
    }

    synchronized double value() {
      long now = clock.millis();
      lastRead = now;
      double total = ended;
      for (double[] run : open.values()) {
        total += run[1] * Math.max(0, now - (long) run[0]) / 1000.0;
      }
      return total;
    }
  }
}
