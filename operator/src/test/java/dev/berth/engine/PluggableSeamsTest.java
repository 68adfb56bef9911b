package dev.berth.engine;

import static dev.berth.engine.Builders.clusterQueue;
import static dev.berth.engine.Builders.flavor;
import static dev.berth.engine.Builders.localQueue;
import static dev.berth.engine.Builders.workload;
import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.engine.model.PendingReason;
import dev.berth.engine.model.PreemptionPolicy;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Preemption and fair sharing plug in through PreemptionPlanner and EntryOrdering. */
class PluggableSeamsTest {

  private static AdmissionEngine engine(EntryOrdering ordering, PreemptionPlanner planner) {
    AdmissionEngine e = new AdmissionEngine(ordering, planner);
    e.upsertResourceFlavor(flavor("default").build());
    e.upsertClusterQueue(
        clusterQueue("cq")
            .preemption(
                new PreemptionPolicy(
                    PreemptionPolicy.WithinClusterQueue.LowerPriority, null, null, null))
            .flavor("default")
            .res("cpu", "4")
            .build());
    e.upsertNamespace("default", Map.of());
    e.upsertLocalQueue(localQueue("lq", "cq"));
    return e;
  }

  @Test
  void aPlannerThatFindsVictimsGetsThemEvictedAndThePreemptorWaitsAtTheHead() {
    PreemptionPlanner lowestPriorityFirst =
        ctx ->
            ctx.candidates().stream()
                .filter(c -> c.priority() < ctx.preemptor().priority())
                .sorted(Comparator.comparingInt(PreemptionContext.Candidate::priority))
                .map(PreemptionContext.Candidate::uid)
                .limit(1)
                .toList();
    AdmissionEngine e = engine(new BorrowingLastOrdering(), lowestPriorityFirst);
    e.upsertWorkload(workload("low").priority(1).podSet("main", 1, "cpu", "4").build());
    assertThat(e.runCycle(1).admissions()).extracting(Admission::name).containsExactly("low");

    e.upsertWorkload(
        workload("high").priority(10).created(2).podSet("main", 1, "cpu", "4").build());
    e.upsertWorkload(workload("next").priority(5).created(3).podSet("main", 1, "cpu", "1").build());
    CycleResult r = e.runCycle(2);
    assertThat(r.admissions()).isEmpty();
    assertThat(r.evictions())
        .containsExactly(
            new Eviction(
                "low",
                "cq",
                EvictionReason.Preempted,
                "preempted to admit high in ClusterQueue cq",
                PreemptionReason.InClusterQueue,
                "high"));
    assertThat(e.status().pendingStatus("high").reason())
        .isEqualTo(PendingReason.WaitingForPreemptedWorkloads);
    assertThat(e.status().pendingStatus("next").message()).contains("waiting behind high");

    assertThat(e.runCycle(3).evictions())
        .as("asked again until the Workload shows Evicted")
        .extracting(Eviction::workloadUid)
        .containsExactly("low");
    e.evictionObserved("low");
    assertThat(e.runCycle(3).evictions()).as("not asked once it shows Evicted").isEmpty();
    e.workloadEvicted("low", 4);
    assertThat(e.runCycle(5).admissions()).extracting(Admission::name).containsExactly("high");
  }

  @Test
  void anEntryOrderingDecidesWhichQueueGoesFirst() {
    EntryOrdering lowPriorityFirst = (a, b) -> Integer.compare(a.priority(), b.priority());
    AdmissionEngine e = engine(lowPriorityFirst, new NoPreemption());
    e.upsertClusterQueue(
        clusterQueue("other").cohort("c").flavor("default").res("cpu", "1").build());
    e.upsertClusterQueue(clusterQueue("cq").cohort("c").flavor("default").res("cpu", "0").build());
    e.upsertLocalQueue(localQueue("lo", "other"));
    e.upsertWorkload(workload("a").queue("lo").priority(9).podSet("main", 1, "cpu", "1").build());
    e.upsertWorkload(workload("b").priority(1).podSet("main", 1, "cpu", "1").build());
    assertThat(e.runCycle(1).admissions()).extracting(Admission::name).containsExactly("b");
    assertThat(e.status().pendingStatus("a").reason()).isEqualTo(PendingReason.WaitingForQuota);
    assertThat(List.of(e.status().clusterQueueCounts("cq").admitted())).containsExactly(1);
  }
}
