package dev.berth.operator.usage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.engine.usage.Run;
import dev.berth.engine.usage.UsageOwner;
import dev.berth.engine.usage.UsageRequest;
import dev.berth.operator.MovableClock;
import dev.berth.operator.metrics.UtilizationMetrics;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The recorder's order of work without Prometheus: runs reach their report in the order they ended,
 * those that wait behind a write go in one write per report, a report write that fails holds the
 * later runs back until it succeeds, and a run is handed back for its Workload record only once it
 * is in its report.
 */
class UsageRecorderTest {
  private static final UsageOwner OWNER = new UsageOwner("team", "lq", "cq", "");
  private final List<String> reported = new CopyOnWriteArrayList<>();
  private final Semaphore reports = new Semaphore(0);
  private final AtomicInteger failuresLeft = new AtomicInteger();
  private final Semaphore pokes = new Semaphore(0);

  @Test
  void aFailingReportWriteHoldsLaterRunsBackAndTheWorkloadRecordWaitsForTheReport()
      throws InterruptedException {
    failuresLeft.set(2);
    try (UsageRecorder recorder =
        recorder(
            runs -> {
              if (failuresLeft.getAndDecrement() > 0) {
                throw new KubernetesClientException("etcd is slow", 500, null);
              }
              runs.forEach(m -> reported.add(m.run().uid()));
              reports.release(runs.size());
              return Set.copyOf(uids(runs));
            })) {
      recorder.submit(task("first", true));
      recorder.submit(task("second", true));
      recorder.submit(task("deleted", false));

      assertThat(recorder.takeRecorded()).as("nothing before its report").isEmpty();
      // Two failures: retried after 1 s and 2 s.
      assertThat(reports.tryAcquire(3, 20, TimeUnit.SECONDS)).isTrue();
      assertThat(reported).containsExactly("first", "second", "deleted");
      // One poke per batch; how the three were batched depends on when the worker got to them.
      List<String> recorded = new ArrayList<>();
      while (recorded.size() < 2 && pokes.tryAcquire(5, TimeUnit.SECONDS)) {
        recorder.takeRecorded().forEach(r -> recorded.add(r.uid()));
      }
      assertThat(recorded)
          .as("a deleted Workload has no record to write")
          .containsExactly("first", "second");
    }
  }

  @Test
  void aRunTheReportRefusesForGoodDoesNotHoldTheRestBack() throws InterruptedException {
    try (UsageRecorder recorder =
        recorder(
            gated(
                runs -> {
                  if (uids(runs).contains("refused")) {
                    throw new KubernetesClientException("entries: Too many", 422, null);
                  }
                  runs.forEach(m -> reported.add(m.run().uid()));
                  return Set.copyOf(uids(runs));
                }))) {
      recorder.submit(task("first", true));
      assertThat(firstWrite.await(5, TimeUnit.SECONDS)).isTrue();
      recorder.submit(task("refused", true));
      recorder.submit(task("next", true));
      release.countDown();

      assertThat(pokes.tryAcquire(3, 5, TimeUnit.SECONDS)).isTrue();
      assertThat(calls)
          .as("the refused batch is sent again one run at a time")
          .containsExactly(
              List.of("first"), List.of("refused", "next"), List.of("refused"), List.of("next"));
      assertThat(reported).containsExactly("first", "next");
      assertThat(recorder.takeRecorded())
          .extracting(Run::uid)
          .containsExactly("first", "refused", "next");
    }
  }

  @Test
  void runsThatArriveWhileAWriteIsOnTheWireGoInOneWritePerReport() throws InterruptedException {
    try (UsageRecorder recorder = recorder(gated(runs -> Set.copyOf(uids(runs))))) {
      recorder.submit(task("a", true));
      assertThat(firstWrite.await(5, TimeUnit.SECONDS)).isTrue();
      for (String uid : List.of("b", "c", "d")) {
        recorder.submit(task(uid, true));
      }
      recorder.submit(task("elsewhere", "other", true));
      recorder.submit(task("e", false));
      release.countDown();

      assertThat(pokes.tryAcquire(3, 5, TimeUnit.SECONDS)).isTrue();
      assertThat(calls)
          .as("one write for the first run, then one per report for what waited behind it")
          .containsExactly(List.of("a"), List.of("b", "c", "d", "e"), List.of("elsewhere"));
      List<String> recorded = new ArrayList<>();
      recorder.takeRecorded().forEach(r -> recorded.add(r.uid()));
      assertThat(recorded).containsExactly("a", "b", "c", "d", "elsewhere");
    }
  }

  @Test
  void aBatchHoldsAtMostMaxBatchRuns() throws InterruptedException {
    int waiting = UsageRecorder.MAX_BATCH + 5;
    try (UsageRecorder recorder = recorder(gated(runs -> Set.copyOf(uids(runs))))) {
      recorder.submit(task("first", false));
      assertThat(firstWrite.await(5, TimeUnit.SECONDS)).isTrue();
      for (int i = 0; i < waiting; i++) {
        recorder.submit(task("r" + i, true));
      }
      release.countDown();

      assertThat(pokes.tryAcquire(2, 5, TimeUnit.SECONDS)).isTrue();
      assertThat(calls).extracting(List::size).containsExactly(1, UsageRecorder.MAX_BATCH, 5);
    }
  }

  @Test
  void aReportIsWrittenAgainOnlyOnceItsIntervalHasPassed() throws InterruptedException {
    MovableClock clock = new MovableClock(1_000_000);
    try (UsageRecorder recorder = recorder(counted(), clock, Duration.ofSeconds(10))) {
      recorder.submit(task("a", true));
      assertThat(writes.tryAcquire(5, TimeUnit.SECONDS)).as("a report not written yet").isTrue();
      recorder.submit(task("b", true));
      recorder.submit(task("c", true));
      clock.advance(9_999);
      recorder.submit(task("d", true));
      clock.advance(1);

      assertThat(writes.tryAcquire(5, TimeUnit.SECONDS)).isTrue();
      assertThat(calls)
          .as("what arrived within the interval waited for its end, and went in one write")
          .containsExactly(List.of("a"), List.of("b", "c", "d"));
    }
  }

  @Test
  void aFullBatchOrAnotherReportDoesNotWaitForTheInterval() throws InterruptedException {
    MovableClock clock = new MovableClock(1_000_000);
    try (UsageRecorder recorder = recorder(counted(), clock, Duration.ofHours(1))) {
      recorder.submit(task("first", true));
      assertThat(writes.tryAcquire(5, TimeUnit.SECONDS)).isTrue();
      for (int i = 0; i < UsageRecorder.MAX_BATCH + 3; i++) {
        recorder.submit(task("r" + i, true));
      }
      recorder.submit(task("elsewhere", "other", true));

      assertThat(writes.tryAcquire(2, 5, TimeUnit.SECONDS)).isTrue();
      assertThat(calls)
          .extracting(c -> c.size() + " " + c.get(0))
          .as("a full batch at once, then the other report; three runs wait for the interval")
          .containsExactly("1 first", UsageRecorder.MAX_BATCH + " r0", "1 elsewhere");

      recorder.submit(task("late", true));
      clock.advance(Duration.ofHours(1).toMillis());
      recorder.submit(task("nudge", "third", true)); // the worker looks again when a run arrives
      assertThat(writes.tryAcquire(2, 5, TimeUnit.SECONDS)).isTrue();
      int n = UsageRecorder.MAX_BATCH;
      assertThat(calls.subList(3, 5))
          .containsExactly(
              List.of("r" + n, "r" + (n + 1), "r" + (n + 2), "late"), List.of("nudge"));
    }
  }

  @Test
  void theIntervalComesFromTheEnvironmentAndABadValueNamesTheVariable() {
    String variable = "BERTH_USAGE_REPORT_INTERVAL_SECONDS";
    assertThat(interval(Map.of())).isEqualTo(Duration.ofSeconds(10));
    assertThat(interval(Map.of(variable, "0"))).isEqualTo(Duration.ZERO);
    assertThat(interval(Map.of(variable, " 30 "))).isEqualTo(Duration.ofSeconds(30));
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> interval(Map.of(variable, "10s")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(
            "usage.reportInterval (BERTH_USAGE_REPORT_INTERVAL_SECONDS): must be a whole number of"
                + " seconds, 0 or more, got \"10s\"");
  }

  private static Duration interval(Map<String, String> env) {
    return dev.berth.operator.config.ConfigurationLoader.fromEnvironment(env)
        .usage()
        .reportInterval();
  }

  private final Semaphore writes = new Semaphore(0);

  /** Reports that note each call's runs and count the calls in {@link #writes}. */
  private UsageRecorder.Reports counted() {
    return runs -> {
      calls.add(List.copyOf(uids(runs)));
      writes.release();
      return Set.copyOf(uids(runs));
    };
  }

  private final List<List<String>> calls = new CopyOnWriteArrayList<>();
  private final CountDownLatch firstWrite = new CountDownLatch(1);
  private final CountDownLatch release = new CountDownLatch(1);

  /**
   * Reports that note each call's runs, and hold every call until {@link #release}: what is
   * submitted while the first call waits is what the next ones batch.
   */
  private UsageRecorder.Reports gated(UsageRecorder.Reports reply) {
    return runs -> {
      calls.add(List.copyOf(uids(runs)));
      firstWrite.countDown();
      await(release);
      return reply.add(runs);
    };
  }

  private static List<String> uids(List<UsageRecorder.Measured> runs) {
    List<String> out = new ArrayList<>();
    runs.forEach(m -> out.add(m.run().uid()));
    return out;
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(10, TimeUnit.SECONDS)) {
        throw new IllegalStateException("not released");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private UsageRecorder recorder(UsageRecorder.Reports reports) {
    return recorder(reports, Clock.systemUTC(), Duration.ZERO);
  }

  private UsageRecorder recorder(UsageRecorder.Reports reports, Clock clock, Duration interval) {
    return new UsageRecorder(
        reports,
        UtilizationSettings.off(),
        new UtilizationMetrics(new SimpleMeterRegistry()),
        clock,
        interval,
        pokes::release);
  }

  private static UsageRecorder.Task task(String uid, boolean durable) {
    return task(uid, OWNER.namespace(), durable);
  }

  private static UsageRecorder.Task task(String uid, String namespace, boolean durable) {
    Run run =
        new Run(
            uid,
            namespace + "/" + uid,
            new UsageOwner(namespace, OWNER.localQueue(), OWNER.clusterQueue(), ""),
            0,
            1000L,
            List.of(new UsageRequest("main", "h100", "nvidia.com/gpu", 1)));
    return new UsageRecorder.Task(run, durable, Map.of());
  }
}
