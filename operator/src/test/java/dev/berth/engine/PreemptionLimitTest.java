package dev.berth.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.engine.model.ClusterQueue;
import dev.berth.engine.model.FlavorQuotas;
import dev.berth.engine.model.LabelSelector;
import dev.berth.engine.model.LocalQueue;
import dev.berth.engine.model.PodSet;
import dev.berth.engine.model.PreemptionLimit;
import dev.berth.engine.model.PreemptionPolicy;
import dev.berth.engine.model.PreemptionPolicy.BorrowWithinCohort;
import dev.berth.engine.model.PreemptionPolicy.ReclaimWithinCohort;
import dev.berth.engine.model.PreemptionPolicy.WithinClusterQueue;
import dev.berth.engine.model.QueueingStrategy;
import dev.berth.engine.model.ResourceFlavor;
import dev.berth.engine.model.ResourceGroup;
import dev.berth.engine.model.ResourceQuota;
import dev.berth.engine.model.StopPolicy;
import dev.berth.engine.model.Workload;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A ClusterQueue's bound on preemptions: its preemptors evict at most {@code count} workloads in
 * any window; the next preemptor waits until enough of them are older than the window.
 */
class PreemptionLimitTest {
  /** "cq": 4 cpu, LowerPriority within, at most 2 preemptions a minute; 4 low workloads run. */
  private static AdmissionEngine full() {
    AdmissionEngine engine = new AdmissionEngine();
    engine.upsertResourceFlavor(ResourceFlavor.named("f"));
    engine.upsertNamespace("ns", Map.of());
    engine.upsertClusterQueue(
        new ClusterQueue(
            "cq",
            null,
            List.of(
                new ResourceGroup(
                    List.of("cpu"),
                    List.of(
                        new FlavorQuotas(
                            "f", List.of(new ResourceQuota("cpu", 4000L, null, null)))))),
            QueueingStrategy.BestEffortFIFO,
            LabelSelector.ALL,
            null,
            new PreemptionPolicy(
                WithinClusterQueue.LowerPriority,
                ReclaimWithinCohort.Never,
                BorrowWithinCohort.Never,
                null),
            StopPolicy.None,
            null,
            null,
            null,
            new PreemptionLimit(2, 60_000)));
    engine.upsertLocalQueue(new LocalQueue("ns", "lq", "cq", StopPolicy.None));
    for (int i = 0; i < 4; i++) {
      engine.upsertWorkload(workload("low-" + i, 0, 1, i));
    }
    assertThat(engine.runCycle(0).admissions()).hasSize(4);
    return engine;
  }

  /** Runs a cycle at {@code now}; each eviction it asks for is carried out at once. */
  private static CycleResult cycle(AdmissionEngine engine, long now) {
    CycleResult r = engine.runCycle(now);
    for (Eviction e : r.evictions()) {
      engine.evictionObserved(e.workloadUid());
      engine.removeWorkload(e.workloadUid());
    }
    return r;
  }

  @Test
  void theThirdPreemptionInAMinuteWaitsForTheFirstToLeaveTheWindow() {
    AdmissionEngine engine = full();
    engine.upsertWorkload(workload("high-0", 10, 1, 1_000));
    assertThat(cycle(engine, 1_000).evictions()).hasSize(1);
    engine.upsertWorkload(workload("high-1", 10, 1, 2_000));
    assertThat(cycle(engine, 2_000).evictions()).hasSize(1);

    engine.upsertWorkload(workload("high-2", 10, 1, 3_000));
    CycleResult limited = cycle(engine, 3_000);
    assertThat(limited.evictions()).isEmpty();
    assertThat(limited.protectionEndsAt()).isEqualTo(61_000);
    assertThat(limited.pendingReasons().get("high-2").message())
        .contains(
            "ClusterQueue cq preempted 2 workload(s) in the last 60s (preemption.maxPreemptions 2"
                + " per 60s); it may preempt 1 more in 58s");
    assertThat(cycle(engine, 60_999).evictions()).isEmpty();

    assertThat(cycle(engine, 61_000).evictions()).hasSize(1);
  }

  @Test
  void aPreemptorNeedingMoreVictimsThanTheCountIsToldSo() {
    AdmissionEngine engine = full();
    engine.upsertWorkload(workload("huge", 10, 3, 1_000));
    CycleResult r = cycle(engine, 1_000);
    assertThat(r.evictions()).isEmpty();
    assertThat(r.pendingReasons().get("huge").message())
        .contains(
            "it would preempt 3 workloads, more than ClusterQueue cq may in 60s"
                + " (preemption.maxPreemptions.count 2)");
  }

  private static Workload workload(String uid, int priority, int cpu, long created) {
    return new Workload(
        uid,
        "ns",
        uid,
        "lq",
        priority,
        created,
        List.of(new PodSet("main", 1, null, Map.of("cpu", cpu * 1000L), null, null, null)));
  }
}
