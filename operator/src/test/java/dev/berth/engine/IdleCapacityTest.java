package dev.berth.engine;

import static dev.berth.engine.BudgetHoldTest.workload;
import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.engine.model.LocalQueue;
import dev.berth.engine.model.PendingReason;
import dev.berth.engine.model.PreemptionPolicy;
import dev.berth.engine.model.ResourceFlavor;
import dev.berth.engine.model.SpentBudgets;
import dev.berth.engine.model.StopPolicy;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A spent budget whose admin lets its workloads run on idle capacity (whenExhausted
 * RunOnIdleCapacity): they are admitted only onto quota nobody within budget takes or waits for in
 * the cycle, never by preempting, are marked, and are the first victims of any workload within its
 * budget that needs the room, whatever the priorities and the queue's preemption policy.
 */
class IdleCapacityTest {
  private static final String SPENT =
      "Budget b (LocalQueue ns-a/la): used 20,013 of 20,000 cpu-hours in 2026-12;"
          + " resets 2027-01-01T00:00Z";

  /** LocalQueue ns-a/la's budget is spent and lets it run on idle capacity. */
  private static final SpentBudgets IDLE =
      new SpentBudgets(Map.of("ns-a/la", SPENT), Map.of(), Map.of(), Set.of(SPENT));

  /** ClusterQueue "cq" (8 cpu, in cohort c) with the policy; LocalQueues ns-a/la and ns-b/lb. */
  private static AdmissionEngine engine(PreemptionPolicy policy) {
    AdmissionEngine engine = new AdmissionEngine();
    engine.upsertResourceFlavor(ResourceFlavor.named("f"));
    engine.upsertNamespace("ns-a", Map.of());
    engine.upsertNamespace("ns-b", Map.of());
    engine.upsertClusterQueue(MinimumRuntimeProperties.queue("cq", 8, 1000L, policy, 0L));
    engine.upsertLocalQueue(new LocalQueue("ns-a", "la", "cq", StopPolicy.None));
    engine.upsertLocalQueue(new LocalQueue("ns-b", "lb", "cq", StopPolicy.None));
    engine.budgets(IDLE);
    return engine;
  }

  private static final PreemptionPolicy LOWER_PRIORITY = BudgetHoldProperties.LOWER_PRIORITY_WITHIN;

  private static List<String> admitted(CycleResult r) {
    return r.admissions().stream().map(Admission::workloadUid).toList();
  }

  @Test
  void aSpentBudgetRunsOnIdleCapacityMarkedAsSuch() {
    AdmissionEngine engine = engine(PreemptionPolicy.NEVER);
    engine.upsertWorkload(workload("a1", "ns-a", "la", 4, 0));
    engine.upsertWorkload(workload("b1", "ns-b", "lb", 2, 1));

    assertThat(admitted(engine.runCycle(1_000))).containsExactlyInAnyOrder("a1", "b1");
    assertThat(engine.onIdleCapacity("a1")).contains(SPENT);
    assertThat(engine.onIdleCapacity("b1")).as("within its budget").isEmpty();
  }

  @Test
  void aWorkloadWithinBudgetGoesFirstInItsClusterQueueWhateverThePriorities() {
    AdmissionEngine engine = engine(PreemptionPolicy.NEVER);
    engine.upsertWorkload(workload("running", "ns-b", "lb", 4, 0));
    engine.runCycle(0);
    // Older and of higher priority, but over budget: the 4 cpu left go to b1.
    engine.upsertWorkload(workload("a1", "ns-a", "la", 4, 1, 100));
    engine.upsertWorkload(workload("b1", "ns-b", "lb", 4, 2, -5));

    assertThat(admitted(engine.runCycle(1_000))).containsExactly("b1");
    PendingStatus a1 = engine.status().pendingStatus("a1");
    assertThat(a1.reason()).isEqualTo(PendingReason.BudgetExhausted);
    assertThat(a1.message())
        .startsWith(SPENT)
        .contains("it may run only on idle capacity (whenExhausted: RunOnIdleCapacity)");
  }

  @Test
  void notWhileAWorkloadWithinBudgetOfItsCohortWaitsInTheCycle() {
    AdmissionEngine engine = engine(PreemptionPolicy.NEVER);
    engine.upsertClusterQueue(
        MinimumRuntimeProperties.queue("other", 0, 1000L, PreemptionPolicy.NEVER, 0L));
    engine.upsertLocalQueue(new LocalQueue("ns-b", "lo", "other", StopPolicy.None));
    engine.upsertWorkload(workload("running", "ns-b", "lb", 6, 0));
    engine.runCycle(0);
    // 2 cpu are idle; "waiting", within its budget in another queue of the cohort, needs 4.
    engine.upsertWorkload(workload("waiting", "ns-b", "lo", 4, 1));
    engine.upsertWorkload(workload("a1", "ns-a", "la", 2, 2));

    CycleResult r = engine.runCycle(1_000);

    assertThat(admitted(r)).isEmpty();
    assertThat(engine.status().pendingStatus("a1").message())
        .contains("a workload within its budget in the cohort tree of ClusterQueue cq waits");
    // Once the waiting workload is gone, the idle capacity is idle: a1 runs on the next release.
    engine.removeWorkload("waiting");
    engine.workloadFinished("running");
    assertThat(admitted(engine.runCycle(2_000))).containsExactly("a1");
  }

  @Test
  void itNeverPreemptsEvenWhereThePolicyWouldLetItsPriority() {
    AdmissionEngine engine = engine(LOWER_PRIORITY);
    engine.upsertWorkload(workload("low", "ns-b", "lb", 8, 0, -10));
    engine.runCycle(0);
    engine.upsertWorkload(workload("a1", "ns-a", "la", 4, 1, 1000));

    CycleResult r = engine.runCycle(1_000);

    assertThat(r.newEvictions()).isEmpty();
    assertThat(admitted(r)).isEmpty();
    assertThat(engine.status().pendingStatus("a1").message()).contains("no idle capacity fits it");
  }

  @Test
  void aWorkloadWithinBudgetTakesItsRoomFirstEvenAtLowerPriorityAndWithPolicyNever() {
    AdmissionEngine engine = engine(PreemptionPolicy.NEVER);
    engine.upsertWorkload(workload("running", "ns-b", "lb", 4, 0));
    engine.upsertWorkload(workload("a1", "ns-a", "la", 2, 1, 100));
    engine.runCycle(1_000);
    engine.upsertWorkload(workload("a2", "ns-a", "la", 2, 2, 100));
    assertThat(admitted(engine.runCycle(1_500))).containsExactly("a2");
    assertThat(engine.onIdleCapacity("a2")).isPresent();

    // Lower priority than both, and the queue never preempts: the workloads on idle capacity
    // give way all the same, the newest first, and only as many as it needs.
    engine.upsertWorkload(workload("b1", "ns-b", "lb", 2, 3, -5));
    CycleResult r = engine.runCycle(2_000);

    assertThat(r.newEvictions())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.workloadUid()).isEqualTo("a2");
              assertThat(e.preemptionReason()).isEqualTo(PreemptionReason.OnIdleCapacity);
              assertThat(e.preemptorUid()).isEqualTo("b1");
            });
    assertThat(engine.status().pendingStatus("b1").reason())
        .isEqualTo(PendingReason.WaitingForPreemptedWorkloads);
    engine.workloadEvicted("a2", 2_500);
    assertThat(admitted(engine.runCycle(3_000))).containsExactly("b1");
    assertThat(engine.onIdleCapacity("a1")).as("still running, still first in line").isPresent();
  }

  @Test
  void inAPreemptionThatNeedsMoreTheWorkloadsOnIdleCapacityGoFirst() {
    AdmissionEngine engine = engine(LOWER_PRIORITY);
    engine.upsertClusterQueue(MinimumRuntimeProperties.queue("cq", 12, 1000L, LOWER_PRIORITY, 0L));
    engine.upsertWorkload(workload("r1", "ns-b", "lb", 4, 0));
    engine.runCycle(1_000);
    engine.upsertWorkload(workload("r2", "ns-b", "lb", 4, 1));
    engine.runCycle(1_500);
    engine.upsertWorkload(workload("a1", "ns-a", "la", 4, 2, 5));
    engine.runCycle(2_000);
    assertThat(engine.onIdleCapacity("a1")).isPresent();

    // 8 cpu: a1's 4 are not enough, so the queue's policy chooses, a1 first, then the newest.
    engine.upsertWorkload(workload("p", "ns-b", "lb", 8, 3, 10));
    CycleResult r = engine.runCycle(3_000);

    assertThat(r.newEvictions())
        .extracting(Eviction::workloadUid)
        .containsExactlyInAnyOrder("a1", "r2");
  }

  @Test
  void readBackAfterARestartItIsStillTheFirstVictim() {
    AdmissionEngine engine = engine(PreemptionPolicy.NEVER);
    engine.recordAdmitted(
        workload("a1", "ns-a", "la", 8, 0),
        "cq",
        List.of(new PodSetAssignment("main", Map.of("cpu", "f"), Map.of("cpu", 8000L), 1, null)),
        0);
    engine.onIdleCapacity("a1", SPENT);
    engine.upsertWorkload(workload("b1", "ns-b", "lb", 8, 1));

    assertThat(engine.runCycle(1_000).newEvictions())
        .extracting(Eviction::workloadUid)
        .containsExactly("a1");
  }

  @Test
  void aBudgetThatMakesThemWaitWinsOverOneThatLetsThemRun() {
    String wait = "Budget w (ClusterQueue cq): used 9 of 8 cpu-hours";
    AdmissionEngine engine = engine(PreemptionPolicy.NEVER);
    engine.budgets(
        new SpentBudgets(Map.of("ns-a/la", SPENT), Map.of("cq", wait), Map.of(), Set.of(SPENT)));
    engine.upsertWorkload(workload("a1", "ns-a", "la", 1, 0));

    assertThat(admitted(engine.runCycle(1_000))).isEmpty();
    assertThat(engine.status().pendingStatus("a1").message()).isEqualTo(wait);
  }
}
