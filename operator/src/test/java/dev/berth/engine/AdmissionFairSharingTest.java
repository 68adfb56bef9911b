package dev.berth.engine;

import static dev.berth.engine.Builders.clusterQueue;
import static dev.berth.engine.Builders.flavor;
import static dev.berth.engine.Builders.workload;
import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.engine.model.AdmissionFairSharing;
import dev.berth.engine.model.LocalQueue;
import dev.berth.engine.model.StopPolicy;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Admission fair sharing: a ClusterQueue with admissionMode UsageBasedAdmissionFairSharing admits
 * from the LocalQueue with the least recent usage for its weight first.
 */
class AdmissionFairSharingTest {
  private static final long HOUR = 3_600_000L;

  private static AdmissionEngine engine(boolean usageOrdered, String cpu) {
    AdmissionEngine engine = new AdmissionEngine();
    engine.upsertResourceFlavor(flavor("default").build());
    engine.upsertNamespace("default", Map.of());
    Builders.QueueBuilder cq = clusterQueue("cq");
    if (usageOrdered) {
      cq.usageBasedAdmissionFairSharing();
    }
    engine.upsertClusterQueue(cq.flavor("default").res("cpu", cpu).build());
    engine.upsertLocalQueue(new LocalQueue("default", "busy", "cq", StopPolicy.None));
    engine.upsertLocalQueue(new LocalQueue("default", "quiet", "cq", StopPolicy.None));
    return engine;
  }

  private static List<String> admitted(AdmissionEngine engine, long now) {
    return engine.runCycle(now).admissions().stream().map(Admission::name).toList();
  }

  /** A pending workload of one pod in a LocalQueue, queued at {@code created}. */
  private static void submit(
      AdmissionEngine engine, String name, String lq, long created, String cpu) {
    engine.upsertWorkload(
        workload(name).queue(lq).created(created).podSet("main", 1, "cpu", cpu).build());
  }

  private static Map<String, BigDecimal> cpu(String cores) {
    return Map.of("cpu", new BigDecimal(cores));
  }

  @Test
  void theLocalQueueWithLessRecentUsageGoesFirstThoughItsWorkloadCameLater() {
    for (boolean usageOrdered : new boolean[] {true, false}) {
      AdmissionEngine engine = engine(usageOrdered, "4");
      engine.restoreLocalQueueUsage("default", "busy", cpu("8"), 0);
      submit(engine, "busy-1", "busy", 1, "4");
      submit(engine, "quiet-1", "quiet", 2, "4");

      // Without the admission mode the older workload goes first.
      assertThat(admitted(engine, 10))
          .as("usage ordered: %s", usageOrdered)
          .containsExactly(usageOrdered ? "quiet-1" : "busy-1");
    }
  }

  @Test
  void usageComesBeforePriority() {
    AdmissionEngine engine = engine(true, "4");
    engine.restoreLocalQueueUsage("default", "busy", cpu("1"), 0);
    engine.upsertWorkload(
        workload("busy-urgent").queue("busy").priority(100).podSet("main", 1, "cpu", "4").build());
    engine.upsertWorkload(workload("quiet-1").queue("quiet").podSet("main", 1, "cpu", "4").build());

    assertThat(admitted(engine, 10)).containsExactly("quiet-1");
  }

  @Test
  void aLocalQueuesWeightDividesItsUsage() {
    AdmissionEngine engine = engine(true, "4");
    // busy: 8 cores over weight 4 = 2; quiet: 3 cores over weight 1 = 3.
    engine.upsertLocalQueue(new LocalQueue("default", "busy", "cq", StopPolicy.None, 4000L));
    engine.restoreLocalQueueUsage("default", "busy", cpu("8"), 0);
    engine.restoreLocalQueueUsage("default", "quiet", cpu("3"), 0);
    submit(engine, "quiet-1", "quiet", 1, "4");
    submit(engine, "busy-1", "busy", 2, "4");

    assertThat(engine.localQueueUsage("default", "busy").orElseThrow().score()).isEqualTo(2.0);
    assertThat(engine.localQueueUsage("default", "quiet").orElseThrow().score()).isEqualTo(3.0);
    assertThat(admitted(engine, 10)).containsExactly("busy-1");
  }

  @Test
  void aLocalQueueOfWeightZeroGoesLast() {
    AdmissionEngine engine = engine(true, "4");
    engine.upsertLocalQueue(new LocalQueue("default", "quiet", "cq", StopPolicy.None, 0L));
    engine.restoreLocalQueueUsage("default", "busy", cpu("100"), 0);
    submit(engine, "quiet-1", "quiet", 1, "4");
    submit(engine, "busy-1", "busy", 2, "4");

    assertThat(admitted(engine, 10)).containsExactly("busy-1");
  }

  @Test
  void theEntryPenaltyMakesTwoLocalQueuesTakeTurnsWithinOneCycle() {
    AdmissionEngine engine = engine(true, "4");
    // α of one sampling interval = 0.5: each admitted core adds half a core at once.
    engine.admissionFairSharing(new AdmissionFairSharing(HOUR, HOUR, Map.of()));
    for (int i = 1; i <= 3; i++) {
      submit(engine, "busy-" + i, "busy", i, "1");
      submit(engine, "quiet-" + i, "quiet", 10 + i, "1");
    }

    assertThat(admitted(engine, 100)).containsExactly("busy-1", "quiet-1", "busy-2", "quiet-2");
    assertThat(engine.localQueueUsage("default", "busy").orElseThrow().penalty().get("cpu"))
        .isEqualByComparingTo("1");
  }

  @Test
  void withoutAHalfLifeThereIsNoPenaltyAndTheOlderWorkloadsGoFirst() {
    AdmissionEngine engine = engine(true, "4");
    engine.admissionFairSharing(new AdmissionFairSharing(0, HOUR, Map.of()));
    for (int i = 1; i <= 3; i++) {
      submit(engine, "busy-" + i, "busy", i, "1");
      submit(engine, "quiet-" + i, "quiet", 10 + i, "1");
    }

    assertThat(admitted(engine, 100)).containsExactly("busy-1", "busy-2", "busy-3", "quiet-1");
  }

  @Test
  void aSampleFoldsWhatRunsIntoTheDecayedUsageAndDropsThePenalty() {
    AdmissionEngine engine = engine(true, "4");
    engine.admissionFairSharing(new AdmissionFairSharing(HOUR, HOUR, Map.of()));
    engine.upsertWorkload(workload("busy-1").queue("busy").podSet("main", 1, "cpu", "2").build());
    assertThat(admitted(engine, 0)).containsExactly("busy-1");

    // First sample: what runs now.
    assertThat(engine.sampleLocalQueueUsage(0))
        .containsExactlyInAnyOrder("default/busy", "default/quiet");
    LocalQueueUsageView busy = engine.localQueueUsage("default", "busy").orElseThrow();
    assertThat(busy.consumed().get("cpu")).isEqualByComparingTo("2");
    assertThat(busy.penalty()).isEmpty();
    assertThat(busy.lastUpdate()).isZero();
    assertThat(engine.localQueueUsage("default", "quiet").orElseThrow().consumed()).isEmpty();

    // It finishes; one half-life later half is left, two later a quarter.
    engine.workloadFinished("busy-1");
    engine.sampleLocalQueueUsage(HOUR);
    assertThat(engine.localQueueUsage("default", "busy").orElseThrow().consumed().get("cpu"))
        .isEqualByComparingTo("1");
    engine.sampleLocalQueueUsage(2 * HOUR);
    assertThat(engine.localQueueUsage("default", "busy").orElseThrow().consumed().get("cpu"))
        .isEqualByComparingTo("0.5");
  }

  @Test
  void onlyLocalQueuesOfClusterQueuesThatOrderByUsageAreSampled() {
    AdmissionEngine engine = engine(false, "4");
    engine.runCycle(0);
    assertThat(engine.sampleLocalQueueUsage(0)).isEmpty();
  }

  @Test
  void aStoredUsageIsTakenOnlyWhenNewerThanTheEnginesOwn() {
    AdmissionEngine engine = engine(true, "4");
    engine.restoreLocalQueueUsage("default", "busy", cpu("8"), 1000);
    engine.restoreLocalQueueUsage("default", "busy", cpu("2"), 500);
    assertThat(engine.localQueueUsage("default", "busy").orElseThrow().consumed().get("cpu"))
        .isEqualByComparingTo("8");
    engine.restoreLocalQueueUsage("default", "busy", cpu("3"), 2000);
    assertThat(engine.localQueueUsage("default", "busy").orElseThrow().lastUpdate())
        .isEqualTo(2000L);
  }

  @Test
  void aSampleThatChangesTheOrderLetsTheOtherLocalQueuesHeadGo() {
    AdmissionEngine engine = engine(true, "4");
    engine.restoreLocalQueueUsage("default", "busy", cpu("8"), 0);
    engine.restoreLocalQueueUsage("default", "quiet", cpu("1"), 0);
    submit(engine, "quiet-1", "quiet", 1, "4");
    submit(engine, "busy-1", "busy", 2, "4");
    assertThat(admitted(engine, 10)).containsExactly("quiet-1");
    engine.workloadFinished("quiet-1");
    // The queue it ran in now has the larger recent usage.
    engine.restoreLocalQueueUsage("default", "quiet", cpu("20"), 20);
    submit(engine, "quiet-2", "quiet", 3, "4");
    assertThat(admitted(engine, 30)).containsExactly("busy-1");
  }

  @Test
  void aCycleThatThrowsTakesBackTheEntryPenaltiesItCharged() {
    PreemptionPlanner failing =
        ctx -> {
          throw new IllegalStateException("planner fails");
        };
    AdmissionEngine engine = new AdmissionEngine(new BorrowingLastOrdering(), failing);
    engine.admissionFairSharing(new AdmissionFairSharing(HOUR, HOUR, Map.of()));
    engine.upsertResourceFlavor(flavor("default").build());
    engine.upsertNamespace("default", Map.of());
    engine.upsertClusterQueue(
        clusterQueue("cq")
            .usageBasedAdmissionFairSharing()
            .flavor("default")
            .res("cpu", "4")
            .build());
    engine.upsertClusterQueue(
        clusterQueue("other")
            .preemption(
                new dev.berth.engine.model.PreemptionPolicy(
                    dev.berth.engine.model.PreemptionPolicy.WithinClusterQueue.LowerPriority,
                    null,
                    null,
                    null))
            .flavor("default")
            .res("cpu", "1")
            .build());
    engine.upsertLocalQueue(new LocalQueue("default", "busy", "cq", StopPolicy.None));
    engine.upsertLocalQueue(new LocalQueue("default", "lo", "other", StopPolicy.None));
    engine.upsertWorkload(workload("low").queue("lo").podSet("main", 1, "cpu", "1").build());
    assertThat(admitted(engine, 1)).containsExactly("low");
    // busy-1 is admitted (charging a penalty), then high's preemption throws.
    engine.upsertWorkload(
        workload("busy-1").queue("busy").priority(20).podSet("main", 1, "cpu", "2").build());
    engine.upsertWorkload(
        workload("high").queue("lo").priority(10).podSet("main", 1, "cpu", "1").build());

    org.assertj.core.api.Assertions.assertThatThrownBy(() -> engine.runCycle(10))
        .hasMessage("planner fails");

    // Never sampled and no penalty left: nothing to show.
    assertThat(engine.localQueueUsage("default", "busy")).isEmpty();
    assertThat(engine.isPending("busy-1")).isTrue();
    // The penalty the retried cycle charges is the only one.
    engine.removeWorkload("high");
    assertThat(admitted(engine, 20)).containsExactly("busy-1");
    assertThat(engine.localQueueUsage("default", "busy").orElseThrow().penalty().get("cpu"))
        .isEqualByComparingTo("1");
  }
}
