package dev.berth.engine;

import static dev.berth.engine.Builders.clusterQueue;
import static dev.berth.engine.Builders.flavor;
import static dev.berth.engine.Builders.localQueue;
import static dev.berth.engine.Builders.workload;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The start-time replay: its assumptions (basis), its bound, and that it leaves the engine be. */
class StartEstimatorTest {
  private final AdmissionEngine engine = new AdmissionEngine();

  StartEstimatorTest() {
    engine.upsertResourceFlavor(flavor("default").build());
    engine.upsertClusterQueue(clusterQueue("cq").flavor("default").res("cpu", "4").build());
    engine.upsertLocalQueue(localQueue("lq", "cq"));
  }

  private void admitAt(long t, String name, String cpus) {
    engine.upsertWorkload(workload(name).created(t).podSet("main", 1, "cpu", cpus).build());
    assertThat(engine.runCycle(t).admissions())
        .extracting(Admission::workloadUid)
        .containsExactly(name);
  }

  private void queue(long t, String name, String cpus) {
    engine.upsertWorkload(workload(name).created(t).podSet("main", 1, "cpu", cpus).build());
  }

  @Test
  void aRunningWorkloadsMaximumExecutionTimeIsWhenTheNextStarts() {
    admitAt(0, "r", "4");
    queue(1_000, "p", "4");
    queue(2_000, "q", "2");
    var est = engine.estimateStarts(5_000, Map.of("r", 100_000L), Map.of("p", 30_000L));
    assertThat(est.get("p")).isEqualTo(new StartEstimate(100_000L, "maxExecutionTime"));
    // q waits for p, which declares 30 s.
    assertThat(est.get("q")).isEqualTo(new StartEstimate(130_000L, "maxExecutionTime"));
    assertThat(engine.status().pendingWorkloads("cq"))
        .extracting(PendingEntry::estimatedStart)
        .containsExactly(100_000L, 130_000L);
  }

  @Test
  void withoutALimitOrAHistoryTheEstimateIsUnknownAndSaysWhy() {
    admitAt(0, "r", "4");
    queue(1_000, "p", "1");
    StartEstimate p = engine.estimateStarts(5_000, Map.of(), Map.of()).get("p");
    assertThat(p.known()).isFalse();
    assertThat(p.basis())
        .startsWith("unknown: waits on 1 admitted workload(s) with no expected end");
  }

  @Test
  void theMedianOfFinishedRuntimesStandsInForAMissingLimit() {
    engine.recordRuntime("cq", "a", 1, 10_000);
    engine.recordRuntime("cq", "b", 2, 30_000);
    engine.recordRuntime("cq", "c", 3, 20_000);
    engine.recordRuntime("cq", "c", 3, 20_000); // a repeated report counts once
    admitAt(0, "r", "4");
    queue(1_000, "p", "4");
    assertThat(engine.estimateStarts(5_000, Map.of(), Map.of()).get("p"))
        .isEqualTo(new StartEstimate(20_000L, "median of 3 finished in cq"));
    // Running for 25 s already: as long as the runs that outlasted 25 s (30 s).
    assertThat(engine.estimateStarts(25_000, Map.of(), Map.of()).get("p").startAt())
        .isEqualTo(30_000L);
    // Older than every run seen: one more median from now.
    assertThat(engine.estimateStarts(40_000, Map.of(), Map.of()).get("p").startAt())
        .isEqualTo(60_000L);
  }

  @Test
  void mixedAssumptionsAreAllNamed() {
    engine.recordRuntime("cq", "a", 1, 50_000);
    admitAt(0, "r1", "2");
    admitAt(0, "r2", "2");
    queue(1_000, "p", "4");
    assertThat(engine.estimateStarts(1_000, Map.of("r1", 10_000L), Map.of()).get("p"))
        .isEqualTo(new StartEstimate(50_000L, "maxExecutionTime; median of 1 finished in cq"));
  }

  @Test
  void onlyEndsInItsOwnCohortTreeAreAWorkloadsAssumptions() {
    engine.upsertClusterQueue(clusterQueue("other").flavor("default").res("cpu", "4").build());
    engine.upsertLocalQueue(localQueue("lq2", "other"));
    engine.recordRuntime("other", "x", 1, 10_000);
    admitAt(0, "r", "4");
    engine.upsertWorkload(
        workload("o1").queue("lq2").created(0).podSet("main", 1, "cpu", "4").build());
    assertThat(engine.runCycle(0).admissions())
        .extracting(Admission::workloadUid)
        .containsExactly("o1");
    queue(1_000, "p", "4");
    engine.upsertWorkload(
        workload("o2").queue("lq2").created(1_000).podSet("main", 1, "cpu", "4").build());
    var est = engine.estimateStarts(1_000, Map.of("r", 100_000L), Map.of());
    assertThat(est.get("o2"))
        .isEqualTo(new StartEstimate(10_000L, "median of 1 finished in other"));
    // "other" freed quota at 10 s in the replay, but none that "p" could use.
    assertThat(est.get("p")).isEqualTo(new StartEstimate(100_000L, "maxExecutionTime"));
  }

  @Test
  void theReplayLeavesTheEngineAsItWas() {
    admitAt(0, "r", "4");
    queue(1_000, "p", "4");
    engine.estimateStarts(5_000, Map.of("r", 10_000L), Map.of());
    assertThat(engine.isPending("p")).isTrue();
    assertThat(engine.admission("r")).isPresent();
    assertThat(engine.status().usage("cq", "default", "cpu")).isEqualTo(4_000);
    assertThat(engine.runCycle(6_000).admissions()).isEmpty();
    engine.workloadFinished("r");
    assertThat(engine.runCycle(7_000).admissions())
        .extracting(Admission::workloadUid)
        .containsExactly("p");
  }

  @Test
  void thousandsPendingAreBoundedByTheCycleCap() {
    admitAt(0, "r", "4");
    Map<String, Long> budgets = new HashMap<>();
    for (int i = 0; i < 5_000; i++) {
      String name = String.format("p%04d", i);
      queue(1_000 + i, name, "1");
      budgets.put(name, 60_000L);
    }
    var est = engine.estimateStarts(1_000, Map.of("r", 60_000L), budgets);
    long t0 = System.nanoTime();
    engine.estimateStarts(1_000, Map.of("r", 60_000L), budgets);
    long ms = (System.nanoTime() - t0) / 1_000_000;
    System.out.printf("start-time replay with 5000 pending: %d ms%n", ms);
    long known = est.values().stream().filter(StartEstimate::known).count();
    assertThat(known).isEqualTo(StartEstimator.MAX_STARTS);
    assertThat(est).hasSize(5_000);
    assertThat(est.get("p4999").basis())
        .isEqualTo("unknown: beyond the replay bound (1000 starts, 1000 cycles)");
    // Four start together every 60 s, in queue order.
    assertThat(est.get("p0003").startAt()).isEqualTo(60_000L);
    assertThat(est.get("p0004").startAt()).isEqualTo(120_000L);
  }

  @Test
  void anEmptyQueueCostsNothing() {
    assertThat(engine.estimateStarts(0, Map.of(), Map.of())).isEmpty();
  }
}
