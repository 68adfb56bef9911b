package dev.berth.engine;

import static dev.berth.engine.BudgetHoldTest.workload;
import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.engine.model.LocalQueue;
import dev.berth.engine.model.PreemptionPolicy;
import dev.berth.engine.model.PreemptionPolicy.BorrowWithinCohort;
import dev.berth.engine.model.PreemptionPolicy.ReclaimWithinCohort;
import dev.berth.engine.model.PreemptionPolicy.WithinClusterQueue;
import dev.berth.engine.model.ResourceFlavor;
import dev.berth.engine.model.StopPolicy;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Which of two workloads of one ClusterQueue (8 cpu, 4 each, w1 admitted a second before w2) a
 * preemptor of higher priority needing 4 cpu takes an hour later: the lower priority, then the one
 * that checkpointed within the queue's window, then the one that ran least.
 */
class VictimOrderTest {
  private static final long HOUR = 3_600_000;

  private static PreemptionPolicy lowerPriority(Long checkpointWindowMillis) {
    return new PreemptionPolicy(
        WithinClusterQueue.LowerPriority,
        ReclaimWithinCohort.Never,
        BorrowWithinCohort.Never,
        null,
        checkpointWindowMillis);
  }

  static Stream<Arguments> cases() {
    Consumer<AdmissionEngine> none = e -> {};
    return Stream.of(
        Arguments.of("no checkpoint: the one that ran least", null, 0, none, "w2"),
        Arguments.of("a checkpoint a minute ago", null, 0, at("w1", HOUR - 60_000), "w1"),
        Arguments.of(
            "a checkpoint in the future (clock skew) counts as now",
            null,
            0,
            at("w1", HOUR + 5_000),
            "w1"),
        Arguments.of(
            "a checkpoint older than the default 10 minutes",
            null,
            0,
            at("w1", HOUR - 660_000),
            "w2"),
        Arguments.of("a queue's own window of an hour", HOUR, 0, at("w1", HOUR - 660_000), "w1"),
        Arguments.of("window 0: checkpoints do not count", 0L, 0, at("w1", HOUR - 1_000), "w2"),
        Arguments.of("both checkpointed: the one that ran least", null, 0, both(), "w2"),
        Arguments.of(
            "a lower priority goes first, checkpoint or not",
            null,
            -1,
            at("w2", HOUR - 1_000),
            "w1"));
  }

  private static Consumer<AdmissionEngine> at(String uid, long when) {
    return e -> e.checkpointed(uid, when);
  }

  private static Consumer<AdmissionEngine> both() {
    return e -> {
      e.checkpointed("w1", HOUR - 1_000);
      e.checkpointed("w2", HOUR - 120_000);
    };
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void theCheapestVictimGoes(
      String name,
      Long window,
      int w1Priority,
      Consumer<AdmissionEngine> checkpoints,
      String victim) {
    AdmissionEngine engine = new AdmissionEngine();
    engine.upsertResourceFlavor(ResourceFlavor.named("f"));
    engine.upsertNamespace("ns", java.util.Map.of());
    engine.upsertClusterQueue(
        MinimumRuntimeProperties.queue("cq", 8, 1000L, lowerPriority(window), 0L));
    engine.upsertLocalQueue(new LocalQueue("ns", "lq", "cq", StopPolicy.None));
    engine.upsertWorkload(workload("w1", "ns", "lq", 4, 0, w1Priority));
    engine.runCycle(0);
    engine.upsertWorkload(workload("w2", "ns", "lq", 4, 1));
    engine.runCycle(1_000);
    checkpoints.accept(engine);
    engine.upsertWorkload(workload("p", "ns", "lq", 4, 2, 10));

    assertThat(engine.runCycle(HOUR).newEvictions())
        .extracting(Eviction::workloadUid)
        .containsExactly(victim);
  }
}
