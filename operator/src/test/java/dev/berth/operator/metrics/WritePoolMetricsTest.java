package dev.berth.operator.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.engine.AdmissionEngine;
import dev.berth.operator.admission.ClusterState;
import dev.berth.operator.admission.WritePool;
import dev.berth.operator.admission.WriterSettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** The writers' meters read the pool at scrape time: a write held on the wire, then back. */
class WritePoolMetricsTest {
  @Test
  void theMetersFollowThePool() throws Exception {
    ClusterState state = new ClusterState(new AdmissionEngine());
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    LinkedBlockingQueue<Consumer<ClusterState>> results = new LinkedBlockingQueue<>();
    try (WritePool pool = new WritePool(new WriterSettings(3, 10, 1_000, 1_000, 5), state)) {
      pool.deliverTo(results::add);
      WritePoolMetrics.bind(pool, registry);
      CountDownLatch onTheWire = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      pool.submit(
          "w",
          () ->
              () -> {
                onTheWire.countDown();
                try {
                  release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
                return s -> {};
              });
      assertThat(onTheWire.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(gauge(registry, "berth_write_pool_writers")).isEqualTo(3);
      assertThat(gauge(registry, "berth_write_pool_outstanding_writes")).isEqualTo(1);
      assertThat(counter(registry, "berth_write_pool_sent_writes_total")).isZero();

      release.countDown();
      Consumer<ClusterState> result = results.poll(10, TimeUnit.SECONDS);
      assertThat(result).isNotNull();
      result.accept(state);
      assertThat(gauge(registry, "berth_write_pool_outstanding_writes")).isZero();
      assertThat(counter(registry, "berth_write_pool_sent_writes_total")).isEqualTo(1);
      assertThat(counter(registry, "berth_write_pool_sending_seconds_total")).isPositive();
      assertThat(counter(registry, "berth_write_pool_throttled_seconds_total"))
          .isLessThan(counter(registry, "berth_write_pool_sending_seconds_total"));
    }
  }

  private static double gauge(SimpleMeterRegistry registry, String name) {
    return registry.get(name).gauge().value();
  }

  private static double counter(SimpleMeterRegistry registry, String name) {
    return registry.get(name).functionCounter().count();
  }
}
