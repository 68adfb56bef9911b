package dev.berth.operator.status;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.engine.AdmissionEngine;
import dev.berth.engine.StartEstimate;
import dev.berth.engine.model.ClusterQueue;
import dev.berth.engine.model.FlavorFungibility;
import dev.berth.engine.model.FlavorQuotas;
import dev.berth.engine.model.LabelSelector;
import dev.berth.engine.model.LocalQueue;
import dev.berth.engine.model.PodSet;
import dev.berth.engine.model.PreemptionPolicy;
import dev.berth.engine.model.QueueingStrategy;
import dev.berth.engine.model.ResourceFlavor;
import dev.berth.engine.model.ResourceGroup;
import dev.berth.engine.model.ResourceQuota;
import dev.berth.engine.model.StopPolicy;
import dev.berth.engine.model.Workload;
import dev.berth.operator.MovableClock;
import dev.berth.operator.admission.ClusterState;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a pending workload's condition message shows of the estimate, and when it changes. */
class StartEstimatesTest {
  private final MovableClock clock =
      new MovableClock(Instant.parse("2026-12-01T16:00:00Z").toEpochMilli());
  private final ClusterState state = new ClusterState(new AdmissionEngine());
  private final List<Duration> pokes = new ArrayList<>();
  private final StartEstimates estimates = new StartEstimates(state, clock, pokes::add);

  private static Workload workload(String name, long created) {
    return new Workload(
        name,
        "ns",
        name,
        "lq",
        0,
        created,
        List.of(
            new PodSet(
                "main", 1, null, Map.of("cpu", 1000L), Map.of(), List.of(), List.of(), null)));
  }

  private void oneCpuQueueWithARunningAndAPendingWorkload(String cq) {
    AdmissionEngine engine = state.engine();
    engine.upsertResourceFlavor(new ResourceFlavor("default", Map.of(), List.of(), List.of()));
    engine.upsertClusterQueue(
        new ClusterQueue(
            cq,
            null,
            List.of(
                new ResourceGroup(
                    List.of("cpu"),
                    List.of(
                        new FlavorQuotas(
                            "default", List.of(new ResourceQuota("cpu", 1000L, null, null)))))),
            QueueingStrategy.BestEffortFIFO,
            LabelSelector.ALL,
            FlavorFungibility.DEFAULT,
            PreemptionPolicy.NEVER,
            StopPolicy.None,
            null));
    engine.upsertLocalQueue(new LocalQueue("ns", "lq", cq, StopPolicy.None));
    engine.upsertWorkload(workload("r", 0));
    assertThat(engine.runCycle(clock.millis()).admissions()).hasSize(1);
    engine.upsertWorkload(workload("p", 1));
  }

  @Test
  void theMessageShowsTheEstimateAndKeepsItUntilItMovesMeaningfully() {
    oneCpuQueueWithARunningAndAPendingWorkload("cq");
    estimates.accept(null);
    // Unknown (nothing says when "r" ends): the message keeps to the reason.
    assertThat(state.engine().startEstimate("p").basis()).startsWith("unknown: waits on 1");
    assertThat(estimates.note("p")).isEmpty();
    assertThat(pokes).containsExactly(StartEstimates.REPLAY_EVERY);

    // A finished run of 20 min teaches the median: "r" is expected to end at 16:20.
    state.engine().recordRuntime("cq", "old", 0, Duration.ofMinutes(20).toMillis());
    clock.advance(5_000);
    estimates.accept(null);
    assertThat(estimates.note("p")).isEmpty(); // replayed at most every 15 s
    clock.advance(StartEstimates.REPLAY_EVERY.toMillis());
    estimates.accept(null);
    assertThat(estimates.note("p"))
        .isEqualTo("; estimated start 2026-12-01T16:20Z (median of 1 finished in cq)");

    // A second run changes the basis (and the median): the shown estimate is replaced.
    state
        .engine()
        .recordRuntime("cq", "older", 1, Duration.ofMinutes(20).plusSeconds(40).toMillis());
    clock.set(Instant.parse("2026-12-01T16:20:10Z"));
    estimates.accept(null);
    assertThat(estimates.note("p")).endsWith("16:20Z (median of 2 finished in cq)");
  }

  @Test
  void aLongBasisIsShortenedSoTheReasonKeepsItsRoom() {
    String cq = "a-cluster-queue-with-a-rather-long-name-as-platform-teams-write-them";
    oneCpuQueueWithARunningAndAPendingWorkload(cq);
    state.engine().recordRuntime(cq, "old", 0, 60_000);
    estimates.accept(null);
    assertThat(estimates.note("p"))
        .hasSize(StartEstimates.NOTE_LIMIT)
        .startsWith("; estimated start 2026-12-01T16:01Z (median of 1 finished in a-cluster")
        .endsWith("\u2026)");
  }

  @Test
  void aMoveCountsWhenItIsAMinuteAndATenthOfTheTimeLeft() {
    long t = 0;
    StartEstimate at = new StartEstimate(3_600_000L, "maxExecutionTime");
    assertThat(StartEstimates.meaningful(at, new StartEstimate(3_900_000L, "maxExecutionTime"), t))
        .isFalse(); // 5 min of 60 left
    assertThat(StartEstimates.meaningful(at, new StartEstimate(3_960_000L, "maxExecutionTime"), t))
        .isTrue(); // 6 min
    assertThat(
            StartEstimates.meaningful(
                at, new StartEstimate(3_630_000L, "maxExecutionTime"), 3_500_000L))
        .isFalse(); // 30 s, under a minute
    assertThat(StartEstimates.meaningful(at, new StartEstimate(3_600_000L, "fits now"), t))
        .isTrue();
    assertThat(StartEstimates.meaningful(at, new StartEstimate(null, "unknown: x"), t)).isTrue();
  }
}
