package dev.berth.operator.metrics;

import dev.berth.engine.usage.Run;
import dev.berth.engine.usage.UsageOwner;
import dev.berth.engine.usage.UsageRequest;
import dev.berth.engine.usage.UsageTotals;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.math.BigDecimal;
import java.util.Map;

/**
 * The DCGM join as counters, added to when a measured run is recorded in its UsageReport:
 *
 * <ul>
 *   <li>{@code berth_namespace_used_resource_seconds_total{namespace,flavor,resource,cost_centre}}
 *       and {@code berth_local_queue_used_resource_seconds_total{namespace,local_queue,...}}: GPUs
 *       actually busy × seconds;
 *   <li>{@code berth_namespace_measured_resource_seconds_total} and the local-queue one: the
 *       requested GPU-seconds of the same runs, so used ÷ measured is the utilization;
 *   <li>{@code berth_utilization_queries_total{outcome=ok|error}}: queries to Prometheus.
 * </ul>
 */
public final class UtilizationMetrics {
  private final MeterRegistry registry;

  public UtilizationMetrics(MeterRegistry registry) {
    this.registry = registry;
  }

  public void query(boolean ok) {
    Counter.builder("berth_utilization_queries")
        .description("Queries for DCGM utilization sent to Prometheus, by outcome")
        .tag("outcome", ok ? "ok" : "error")
        .register(registry)
        .increment();
  }

  /** A recorded run with the device-seconds used of its measured requests. */
  public void recorded(Run run, Map<UsageTotals.Key, BigDecimal> used) {
    UsageOwner o = run.owner();
    double seconds = (run.end() - run.start()) / 1000.0;
    for (UsageRequest r : run.requests()) {
      BigDecimal u = used.get(new UsageTotals.Key(r.podSet(), r.flavor(), r.resource()));
      if (u == null) {
        continue;
      }
      double requested = UsageTotals.natural(r.resource(), r.amount()).doubleValue() * seconds;
      Tags ns =
          Tags.of(
              "namespace",
              o.namespace(),
              "flavor",
              r.flavor(),
              "resource",
              r.resource(),
              "cost_centre",
              o.costCentre());
      Tags lq = ns.and("local_queue", o.localQueue());
      add(
          "berth_namespace_used_resource_seconds",
          ns,
          u.doubleValue(),
          "Devices busy × seconds, from DCGM, of the measured runs");
      add(
          "berth_local_queue_used_resource_seconds",
          lq,
          u.doubleValue(),
          "Devices busy × seconds, from DCGM, of the measured runs");
      add(
          "berth_namespace_measured_resource_seconds",
          ns,
          requested,
          "Requested × seconds of the runs the DCGM join measured");
      add(
          "berth_local_queue_measured_resource_seconds",
          lq,
          requested,
          "Requested × seconds of the runs the DCGM join measured");
    }
  }

  private void add(String name, Tags tags, double amount, String description) {
    Counter.builder(name).description(description).tags(tags).register(registry).increment(amount);
  }
}
