package dev.berth.operator.admission;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@code berth_admitted_workloads_total} and {@code berth_admission_wait_time_seconds}, recorded
 * when a workload is admitted (its Admitted condition written True), as Kueue records them: at the
 * quota reservation for a workload without admission checks, once every check is Ready for one with
 * them. The reservation itself has its own pair ({@code berth_quota_reserved_*}, {@code
 * BerthMetrics}).
 */
public final class AdmittedMetrics {
  private final MeterRegistry registry;

  /** Looked up once per ClusterQueue: registering meters per admission costs CPU under load. */
  private final Map<String, Meters> meters = new ConcurrentHashMap<>();

  private record Meters(Counter admitted, DistributionSummary waited) {}

  public AdmittedMetrics(MeterRegistry registry) {
    this.registry = registry;
  }

  /**
   * One admission in {@code clusterQueue} at {@code admittedAt} (epoch ms) of a workload queued
   * since {@code queuedAt} (its creation, or its last requeue; 0 when unknown: counted, no wait).
   */
  public void admitted(String clusterQueue, long queuedAt, long admittedAt) {
    Meters m = meters.computeIfAbsent(clusterQueue, this::register);
    m.admitted().increment();
    if (queuedAt > 0) {
      m.waited().record(Math.max(0, admittedAt - queuedAt) / 1000.0);
    }
  }

  private Meters register(String clusterQueue) {
    Tags cq = Tags.of("cluster_queue", clusterQueue);
    return new Meters(
        Counter.builder("berth_admitted_workloads_total")
            .description("Workloads admitted (Admitted condition True)")
            .tags(cq)
            .register(registry),
        DistributionSummary.builder("berth_admission_wait_time_seconds")
            .description("From creation or the last requeue to admission")
            .baseUnit("seconds")
            .publishPercentileHistogram()
            .tags(cq)
            .register(registry));
  }
}
