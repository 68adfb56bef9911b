package dev.berth.operator.metrics;

import dev.berth.operator.admission.WritePool;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * What the admission loop's writers are doing, read at scrape time, so that an admin can tell what
 * bounds the rate of admissions on a busy cluster:
 *
 * <ul>
 *   <li>{@code berth_write_pool_writers} (BERTH_WRITERS) and {@code
 *       berth_write_pool_outstanding_writes}: writes in flight or waiting for their object's
 *       previous write;
 *   <li>{@code berth_write_pool_sent_writes_total} and {@code
 *       berth_write_pool_sending_seconds_total}: time spent sending them, summed over the writers.
 *       Its rate divided by the writers is how busy they are; divided by the rate of writes, the
 *       mean time from sending one to its answer (the API server's answer, and the client's own
 *       encoding and decoding). Writers busy nearly all the time, with a time per write that grows
 *       with more of them, mean the API server is the bound;
 *   <li>{@code berth_write_pool_throttled_seconds_total}: time the writers waited for the client's
 *       own rate bound (BERTH_WRITE_QPS, BERTH_WRITE_BURST) instead; when it grows, that bound is
 *       the limit, not the API server.
 * </ul>
 */
public final class WritePoolMetrics {
  private WritePoolMetrics() {}

  public static void bind(WritePool pool, MeterRegistry registry) {
    Gauge.builder("berth_write_pool_writers", pool, p -> p.activity().writers())
        .description("Writer threads of the admission loop (BERTH_WRITERS)")
        .register(registry);
    Gauge.builder("berth_write_pool_outstanding_writes", pool, p -> p.activity().outstanding())
        .description("Writes in flight or waiting behind an earlier write of the same object")
        .register(registry);
    FunctionCounter.builder("berth_write_pool_sent_writes_total", pool, p -> p.activity().sent())
        .description("Writes the writers sent (answered, refused or failed)")
        .register(registry);
    FunctionCounter.builder(
            "berth_write_pool_sending_seconds_total", pool, p -> p.activity().sendingSeconds())
        .description("Time the writers spent sending, summed over the writers")
        .register(registry);
    FunctionCounter.builder(
            "berth_write_pool_throttled_seconds_total", pool, p -> p.activity().throttledSeconds())
        .description("Time the writers waited for the client rate bound, summed over the writers")
        .register(registry);
  }
}
