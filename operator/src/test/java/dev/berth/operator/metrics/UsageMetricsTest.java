package dev.berth.operator.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.engine.usage.Run;
import dev.berth.engine.usage.UsageLedger;
import dev.berth.engine.usage.UsageOwner;
import dev.berth.engine.usage.UsageRequest;
import dev.berth.operator.MovableClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Counters against a clock the test moves: exact resource-seconds at every scrape. */
class UsageMetricsTest {
  private static final UsageOwner A = new UsageOwner("team-a", "train", "cq-a", "cc-1");
  private static final UsageOwner B = new UsageOwner("team-a", "serve", "cq-a", "");
  private final MovableClock clock = new MovableClock(1_000_000);
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final UsageMetrics metrics = new UsageMetrics(registry, clock);

  @Test
  void openRunsCountAsTheyGoAndEndedRunsStopAtTheirEnd() {
    Run a = run("a", A, 1_000_000, 8, 4000);
    metrics.apply(new UsageLedger.Opened(a));
    clock.advance(90_000);
    assertThat(localQueue("train", "nvidia.com/gpu")).isEqualTo(8 * 90.0);
    assertThat(localQueue("train", "cpu")).as("4000m = 4 cores").isEqualTo(4 * 90.0);

    Run b = run("b", B, clock.millis(), 2, 0);
    metrics.apply(new UsageLedger.Opened(b));
    clock.advance(10_000);
    metrics.apply(new UsageLedger.Ended(withEnd(a, clock.millis()), true));
    clock.advance(50_000);

    assertThat(localQueue("train", "nvidia.com/gpu")).isEqualTo(8 * 100.0);
    assertThat(localQueue("serve", "nvidia.com/gpu")).isEqualTo(2 * 60.0);
    assertThat(clusterQueue("nvidia.com/gpu")).isEqualTo(8 * 100.0 + 2 * 60.0);
    assertThat(
            registry
                .get("berth_namespace_resource_seconds_total")
                .tags("namespace", "team-a", "cost_centre", "cc-1", "resource", "nvidia.com/gpu")
                .functionCounter()
                .count())
        .isEqualTo(800.0);
  }

  @Test
  void runsFromBeforeThisProcessCountFromItsStartAndAReadValueNeverGoesDown() {
    Run old = run("old", A, 400_000, 1, 0);
    metrics.apply(new UsageLedger.Opened(old));
    clock.advance(30_000);
    assertThat(localQueue("train", "nvidia.com/gpu"))
        .as("from the process start only")
        .isEqualTo(30.0);

    // Its release is observed after the scrape, stamped 10 s before it.
    metrics.apply(new UsageLedger.Ended(withEnd(old, clock.millis() - 10_000), true));
    assertThat(localQueue("train", "nvidia.com/gpu")).isEqualTo(30.0);

    Run before = run("before", A, 100_000, 4, 0);
    metrics.apply(new UsageLedger.Ended(withEnd(before, 900_000), true));
    assertThat(localQueue("train", "nvidia.com/gpu"))
        .as("ended before this process began")
        .isEqualTo(30.0);
  }

  private double localQueue(String queue, String resource) {
    return registry
        .get("berth_local_queue_resource_seconds_total")
        .tags("local_queue", queue, "resource", resource)
        .functionCounter()
        .count();
  }

  private double clusterQueue(String resource) {
    return registry
        .get("berth_cluster_queue_resource_seconds_total")
        .tags("cluster_queue", "cq-a", "resource", resource)
        .functionCounter()
        .count();
  }

  private static Run run(String uid, UsageOwner owner, long start, long gpus, long milliCpu) {
    List<UsageRequest> requests =
        milliCpu == 0
            ? List.of(new UsageRequest("main", "h100", "nvidia.com/gpu", gpus))
            : List.of(
                new UsageRequest("main", "h100", "nvidia.com/gpu", gpus),
                new UsageRequest("main", "h100", "cpu", milliCpu));
    return new Run(uid, uid, owner, start, null, requests);
  }

  private static Run withEnd(Run run, long end) {
    return new Run(run.uid(), run.name(), run.owner(), run.start(), end, run.requests());
  }
}
