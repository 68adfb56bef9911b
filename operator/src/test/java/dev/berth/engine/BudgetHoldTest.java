package dev.berth.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.engine.model.LocalQueue;
import dev.berth.engine.model.PendingReason;
import dev.berth.engine.model.PodSet;
import dev.berth.engine.model.PreemptionPolicy;
import dev.berth.engine.model.ResourceFlavor;
import dev.berth.engine.model.SpentBudgets;
import dev.berth.engine.model.StopPolicy;
import dev.berth.engine.model.Workload;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Spent budgets as the engine takes them: the LocalQueues they name (by themselves, by their
 * ClusterQueue, or by their namespace's cost centre) hold their pending workloads with reason
 * BudgetExhausted and the budget's message, other queues admit as before, what runs keeps running,
 * and a budget no longer spent releases the held workloads.
 */
class BudgetHoldTest {
  private static final String SPENT =
      "Budget b: used 20,013 of 20,000 nvidia.com/gpu-hours in 2026-12; resets 2027-01-01T00:00Z";

  /**
   * ClusterQueue "cq" (8 cpu); LocalQueue "la" in namespace "ns-a" (cost centre cc-1), "lb" in
   * ns-b.
   */
  private static AdmissionEngine engine() {
    AdmissionEngine engine = new AdmissionEngine();
    engine.upsertResourceFlavor(ResourceFlavor.named("f"));
    engine.upsertNamespace("ns-a", Map.of(SpentBudgets.COST_CENTRE_LABEL, "cc-1"));
    engine.upsertNamespace("ns-b", Map.of());
    engine.upsertClusterQueue(
        MinimumRuntimeProperties.queue("cq", 8, 1000L, PreemptionPolicy.NEVER, 0L));
    engine.upsertLocalQueue(new LocalQueue("ns-a", "la", "cq", StopPolicy.None));
    engine.upsertLocalQueue(new LocalQueue("ns-b", "lb", "cq", StopPolicy.None));
    return engine;
  }

  static Stream<Arguments> spentForLocalQueueA() {
    return Stream.of(
        Arguments.of(
            "the LocalQueue's own budget",
            new SpentBudgets(Map.of("ns-a/la", SPENT), Map.of(), Map.of()),
            true),
        Arguments.of(
            "the cost centre of its namespace",
            new SpentBudgets(Map.of(), Map.of(), Map.of("cc-1", SPENT)),
            true),
        Arguments.of(
            "the ClusterQueue's budget holds both queues",
            new SpentBudgets(Map.of(), Map.of("cq", SPENT), Map.of()),
            false),
        Arguments.of(
            "another cost centre's budget holds neither",
            new SpentBudgets(Map.of(), Map.of(), Map.of("cc-2", SPENT)),
            null));
  }

  /**
   * @param bAdmitted whether lb's workload is admitted meanwhile; null when neither queue is held
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("spentForLocalQueueA")
  void theQueuesABudgetNamesWaitTheOthersAdmit(String name, SpentBudgets spent, Boolean bAdmitted) {
    AdmissionEngine engine = engine();
    engine.upsertWorkload(workload("running", "ns-a", "la", 2, 0));
    assertThat(engine.runCycle(0).admissions())
        .extracting(Admission::workloadUid)
        .contains("running");

    engine.budgets(spent);
    engine.upsertWorkload(workload("a1", "ns-a", "la", 1, 1_000));
    engine.upsertWorkload(workload("b1", "ns-b", "lb", 1, 2_000));
    CycleResult cycle = engine.runCycle(3_000);

    assertThat(cycle.evictions()).as("a budget never stops what runs").isEmpty();
    List<String> admitted = cycle.admissions().stream().map(Admission::workloadUid).toList();
    if (bAdmitted == null) {
      assertThat(admitted).containsExactlyInAnyOrder("a1", "b1");
      return;
    }
    assertThat(admitted).doesNotContain("a1");
    PendingStatus a1 = engine.status().pendingStatus("a1");
    assertThat(a1.reason()).isEqualTo(PendingReason.BudgetExhausted);
    assertThat(a1.message()).isEqualTo(SPENT);
    if (bAdmitted) {
      assertThat(admitted).containsExactly("b1");
    } else {
      assertThat(admitted).isEmpty();
      assertThat(engine.status().pendingStatus("b1").reason())
          .isEqualTo(PendingReason.BudgetExhausted);
    }
    assertThat(engine.status().clusterQueueCounts("cq").admitted()).isEqualTo(bAdmitted ? 2 : 1);

    // The next window: nothing is spent, the held workloads compete again.
    engine.budgets(SpentBudgets.NONE);
    List<String> released =
        engine.runCycle(4_000).admissions().stream().map(Admission::workloadUid).toList();
    assertThat(released).contains("a1");
  }

  @Test
  void aChangedMessageIsWhatTheHeldWorkloadsSay() {
    AdmissionEngine engine = engine();
    engine.budgets(new SpentBudgets(Map.of("ns-a/la", SPENT), Map.of(), Map.of()));
    engine.upsertWorkload(workload("a1", "ns-a", "la", 1, 0));
    engine.runCycle(0);
    String later = SPENT.replace("20,013", "20,020");
    engine.budgets(new SpentBudgets(Map.of("ns-a/la", later), Map.of(), Map.of()));
    engine.runCycle(1_000);
    assertThat(engine.status().pendingStatus("a1").message()).isEqualTo(later);
  }

  @Test
  void aStoppedLocalQueueSaysItIsStoppedNotThatItsBudgetIsSpent() {
    AdmissionEngine engine = engine();
    engine.upsertLocalQueue(new LocalQueue("ns-a", "la", "cq", StopPolicy.Hold));
    engine.budgets(new SpentBudgets(Map.of("ns-a/la", SPENT), Map.of(), Map.of()));
    engine.upsertWorkload(workload("a1", "ns-a", "la", 1, 0));
    engine.runCycle(0);
    assertThat(engine.status().pendingStatus("a1").reason()).isEqualTo(PendingReason.Inadmissible);
  }

  @Test
  void aNamespaceLabelledLaterWithASpentCostCentreIsHeldToo() {
    AdmissionEngine engine = engine();
    engine.budgets(new SpentBudgets(Map.of(), Map.of(), Map.of("cc-9", SPENT)));
    engine.upsertWorkload(workload("b1", "ns-b", "lb", 1, 0));
    engine.upsertNamespace("ns-b", Map.of(SpentBudgets.COST_CENTRE_LABEL, "cc-9"));
    assertThat(engine.runCycle(0).admissions()).isEmpty();
    assertThat(engine.status().pendingStatus("b1").reason())
        .isEqualTo(PendingReason.BudgetExhausted);
  }

  static Workload workload(String uid, String namespace, String queue, int cpu, long created) {
    return workload(uid, namespace, queue, cpu, created, 0);
  }

  static Workload workload(
      String uid, String namespace, String queue, int cpu, long created, int priority) {
    return new Workload(
        uid,
        namespace,
        uid,
        queue,
        priority,
        created,
        List.of(new PodSet("main", 1, null, Map.of("cpu", cpu * 1000L), null, null, null)));
  }
}
