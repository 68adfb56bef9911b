package dev.berth.operator.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import dev.berth.operator.WaitForPodsReady;
import dev.berth.operator.events.EventRecorder;
import dev.berth.operator.informers.InformerCaches;
import dev.berth.operator.metrics.MetricsServer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;

/**
 * The liveness probe's promise: an admission loop stuck in one cycle for {@link
 * AdmissionLoop#STUCK_AFTER} makes {@code /healthz} answer 503, so the kubelet restarts the
 * process; one that gets going again is live again. The real loop and the real probe server, with
 * the loop's liveness measured on a clock the test moves, and a cycle held by an observation that
 * waits until the test lets it go.
 */
class LoopStuckHealthTest {
  private final AtomicLong nanos = new AtomicLong(TimeUnit.HOURS.toNanos(1));
  private final ClusterState state = ClusterStateFaultsTest.cluster();

  @Test
  void aCycleRunningPastTheLimitTurnsHealthzTo503AndBack() throws Exception {
    AdmissionLoop loop = loop().start();
    MetricsServer probes =
        new MetricsServer(
                0, new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), loop::isLive, () -> true)
            .start();
    try {
      // Bootstrapped and waiting for work: live, however much time passes.
      loop.submit(s -> {}).get(10, TimeUnit.SECONDS);
      nanos.addAndGet(TimeUnit.HOURS.toNanos(2));
      assertThat(healthz(probes)).isEqualTo(200);

      CountDownLatch inCycle = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      var held =
          loop.submit(
              s -> {
                inCycle.countDown();
                try {
                  release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              });
      assertThat(inCycle.await(10, TimeUnit.SECONDS)).isTrue();
      nanos.addAndGet(AdmissionLoop.STUCK_AFTER.minusSeconds(1).toNanos());
      assertThat(healthz(probes)).as("one second short of the limit").isEqualTo(200);
      nanos.addAndGet(Duration.ofSeconds(2).toNanos());
      assertThat(healthz(probes)).as("one second past the limit").isEqualTo(503);

      release.countDown();
      held.get(10, TimeUnit.SECONDS);
      await().atMost(Duration.ofSeconds(10)).until(() -> healthz(probes) == 200);
    } finally {
      probes.close();
      loop.close();
    }
  }

  private static int healthz(MetricsServer probes) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + probes.port() + "/healthz"))
                .build(),
            HttpResponse.BodyHandlers.discarding())
        .statusCode();
  }

  private AdmissionLoop loop() throws InterruptedException {
    return loop(state, state.engine(), nanos::get);
  }

  /** The loop on caches that have synced with nothing in them; its writer never writes here. */
  static AdmissionLoop loop(
      ClusterState state, dev.berth.engine.AdmissionEngine engine, LongSupplier livenessClock)
      throws InterruptedException {
    InformerCaches caches = mock(InformerCaches.class);
    when(caches.awaitSynced(any())).thenReturn(true);
    when(caches.isSynced()).thenReturn(true);
    when(caches.list(any())).thenReturn(List.of());
    WritePool pool = new WritePool(new WriterSettings(2, 4, 1_000, 1_000, 5), state);
    DecisionWriter writer =
        new DecisionWriter(
            null,
            new EventRecorder(e -> {}),
            Clock.systemUTC(),
            new SimpleMeterRegistry(),
            WaitForPodsReady.DEFAULT,
            new CheckBackoffs(),
            pool,
            null);
    return new AdmissionLoop(
        engine, state, new Bootstrap(caches, (o, e) -> true), writer, livenessClock);
  }
}
