package dev.berth.operator.usage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.engine.usage.Run;
import dev.berth.engine.usage.UsageOwner;
import dev.berth.engine.usage.UsageRequest;
import dev.berth.operator.metrics.UtilizationMetrics;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The recorder's order of work without Prometheus: runs reach their report in the order they ended,
 * a report write that fails holds the later runs back until it succeeds, and a run is handed back
 * for its Workload record only once it is in its report.
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
            (run, used) -> {
              if (failuresLeft.getAndDecrement() > 0) {
                throw new KubernetesClientException("etcd is slow", 500, null);
              }
              reported.add(run.uid());
              reports.release();
              return true;
            })) {
      recorder.submit(task("first", true));
      recorder.submit(task("second", true));
      recorder.submit(task("deleted", false));

      assertThat(recorder.takeRecorded()).as("nothing before its report").isEmpty();
      // Two failures: retried after 1 s and 2 s.
      assertThat(reports.tryAcquire(3, 20, TimeUnit.SECONDS)).isTrue();
      assertThat(reported).containsExactly("first", "second", "deleted");
      assertThat(pokes.tryAcquire(2, 5, TimeUnit.SECONDS)).isTrue();
      assertThat(recorder.takeRecorded())
          .extracting(Run::uid)
          .as("a deleted Workload has no record to write")
          .containsExactly("first", "second");
    }
  }

  @Test
  void aRunTheReportRefusesForGoodDoesNotHoldTheRestBack() throws InterruptedException {
    try (UsageRecorder recorder =
        recorder(
            (run, used) -> {
              if (run.uid().equals("refused")) {
                throw new KubernetesClientException("entries: Too many", 422, null);
              }
              reported.add(run.uid());
              return true;
            })) {
      recorder.submit(task("refused", true));
      recorder.submit(task("next", true));

      assertThat(pokes.tryAcquire(2, 5, TimeUnit.SECONDS)).isTrue();
      assertThat(reported).containsExactly("next");
      assertThat(recorder.takeRecorded()).extracting(Run::uid).containsExactly("refused", "next");
    }
  }

  private UsageRecorder recorder(UsageRecorder.Reports reports) {
    return new UsageRecorder(
        reports,
        UtilizationSettings.off(),
        new UtilizationMetrics(new SimpleMeterRegistry()),
        Clock.systemUTC(),
        pokes::release);
  }

  private static UsageRecorder.Task task(String uid, boolean durable) {
    Run run =
        new Run(
            uid,
            "team/" + uid,
            OWNER,
            0,
            1000L,
            List.of(new UsageRequest("main", "h100", "nvidia.com/gpu", 1)));
    return new UsageRecorder.Task(run, durable, Map.of());
  }
}
