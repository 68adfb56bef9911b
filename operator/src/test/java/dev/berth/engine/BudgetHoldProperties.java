package dev.berth.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.engine.model.LocalQueue;
import dev.berth.engine.model.PendingReason;
import dev.berth.engine.model.PreemptionPolicy;
import dev.berth.engine.model.PreemptionPolicy.BorrowWithinCohort;
import dev.berth.engine.model.PreemptionPolicy.ReclaimWithinCohort;
import dev.berth.engine.model.PreemptionPolicy.WithinClusterQueue;
import dev.berth.engine.model.ResourceFlavor;
import dev.berth.engine.model.SpentBudgets;
import dev.berth.engine.model.StopPolicy;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.From;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;

/**
 * Random arrivals, finishes and budgets spent and renewed, over two ClusterQueues of a cohort (one
 * preempting lower priorities within itself) with a LocalQueue in each of three namespaces: no
 * workload of a held queue is admitted while its budget is spent, each of its pending workloads
 * says BudgetExhausted, budgets never evict, and once nothing is spent every workload that fits
 * alone is admitted in the end.
 */
class BudgetHoldProperties {
  /** One step: a workload arrives (queue, cpu, priority), one finishes, or the budgets change. */
  record Step(int kind, int queue, int cpu, int priority, int budgets) {}

  /** Preemption of lower priorities within the ClusterQueue only. */
  static final PreemptionPolicy LOWER_PRIORITY_WITHIN =
      new PreemptionPolicy(
          WithinClusterQueue.LowerPriority,
          ReclaimWithinCohort.Never,
          BorrowWithinCohort.Never,
          null);

  private static final String[] QUEUES = {"ns0/lq", "ns1/lq", "ns2/lq"};
  private static final String[] CLUSTER_QUEUES = {"a", "a", "b"};

  @Provide
  Arbitrary<Step> step() {
    return steps(3, 31);
  }

  /** Steps over three LocalQueues, of 1 to {@code maxCpu} cpu, budgets 0 to {@code maxBudgets}. */
  static Arbitrary<Step> steps(int maxCpu, int maxBudgets) {
    return Combinators.combine(
            Arbitraries.integers().between(0, 2),
            Arbitraries.integers().between(0, 2),
            Arbitraries.integers().between(1, maxCpu),
            Arbitraries.integers().between(0, 2),
            Arbitraries.integers().between(0, maxBudgets))
        .as(Step::new);
  }

  /** Bits of {@code mask}: LocalQueues 0 to 2, ClusterQueue a, cost centre cc-2 (namespace ns2). */
  private static SpentBudgets spent(int mask) {
    Map<String, String> lqs = new HashMap<>();
    for (int i = 0; i < 3; i++) {
      if ((mask & (1 << i)) != 0) {
        lqs.put(QUEUES[i], "lq " + i);
      }
    }
    Map<String, String> cqs = (mask & 8) != 0 ? Map.of("a", "cq a") : Map.of();
    Map<String, String> ccs = (mask & 16) != 0 ? Map.of("cc-2", "cc") : Map.of();
    return new SpentBudgets(lqs, cqs, ccs);
  }

  /**
   * Applies an arrival (workload {@code uid} in LocalQueue ns{queue}/lq) or a finish (the first
   * admitted workload by name); false for a budgets step, which each property applies its own way.
   */
  static boolean arriveOrFinish(
      AdmissionEngine engine, Step step, String uid, long now, Set<String> admitted) {
    switch (step.kind()) {
      case 0 ->
          engine.upsertWorkload(
              BudgetHoldTest.workload(
                  uid, "ns" + step.queue(), "lq", step.cpu(), now, step.priority()));
      case 1 -> {
        String done = admitted.stream().sorted().findFirst().orElse(null);
        if (done != null) {
          admitted.remove(done);
          engine.workloadFinished(done);
        }
      }
      default -> {
        return false;
      }
    }
    return true;
  }

  private static boolean held(int mask, int queue) {
    return (mask & (1 << queue)) != 0
        || ((mask & 8) != 0 && CLUSTER_QUEUES[queue].equals("a"))
        || ((mask & 16) != 0 && queue == 2);
  }

  @Property(tries = 500)
  void noHeldWorkloadIsAdmittedAndNothingIsEvictedForABudget(
      @ForAll @Size(min = 1, max = 60) List<@From("step") Step> steps) {
    AdmissionEngine engine = new AdmissionEngine();
    engine.upsertResourceFlavor(ResourceFlavor.named("f"));
    PreemptionPolicy within = LOWER_PRIORITY_WITHIN;
    engine.upsertClusterQueue(MinimumRuntimeProperties.queue("a", 4, 1000L, within, 0L));
    engine.upsertClusterQueue(
        MinimumRuntimeProperties.queue("b", 4, 1000L, PreemptionPolicy.NEVER, 0L));
    for (int i = 0; i < 3; i++) {
      engine.upsertNamespace(
          "ns" + i, i == 2 ? Map.of(SpentBudgets.COST_CENTRE_LABEL, "cc-2") : Map.of());
      engine.upsertLocalQueue(new LocalQueue("ns" + i, "lq", CLUSTER_QUEUES[i], StopPolicy.None));
    }
    int mask = 0;
    Map<String, Integer> queueOf = new HashMap<>();
    Set<String> admitted = new HashSet<>();
    Set<String> pending = new HashSet<>();
    long now = 0;
    int n = 0;
    for (Step step : steps) {
      now += 1_000;
      String arrival = "w" + n;
      if (step.kind() == 0) {
        n++;
        queueOf.put(arrival, step.queue());
        pending.add(arrival);
      }
      if (!arriveOrFinish(engine, step, arrival, now, admitted)) {
        mask = step.budgets();
        engine.budgets(spent(mask));
      }
      CycleResult r = engine.runCycle(now);
      for (Admission a : r.admissions()) {
        assertThat(held(mask, queueOf.get(a.workloadUid())))
            .as("%s admitted while its budget is spent (mask %s)", a.workloadUid(), mask)
            .isFalse();
        admitted.add(a.workloadUid());
        pending.remove(a.workloadUid());
      }
      for (Eviction e : r.newEvictions()) {
        assertThat(e.reason()).as("budgets never evict").isEqualTo(EvictionReason.Preempted);
        assertThat(held(mask, queueOf.get(e.preemptorUid())))
            .as("a held workload preempts nothing")
            .isFalse();
      }
      for (Eviction e : r.evictions()) {
        engine.workloadEvicted(e.workloadUid(), now);
        admitted.remove(e.workloadUid());
        pending.add(e.workloadUid());
      }
      for (String uid : pending) {
        if (held(mask, queueOf.get(uid))) {
          assertThat(engine.status().pendingStatus(uid).reason())
              .as("%s waits for its budget", uid)
              .isEqualTo(PendingReason.BudgetExhausted);
        }
      }
    }
    // A new window for everyone; everything admitted finishes: what waits fits alone, so it runs.
    engine.budgets(SpentBudgets.NONE);
    for (int round = 0; round < 200 && !(pending.isEmpty() && admitted.isEmpty()); round++) {
      now += 1_000;
      for (String uid : List.copyOf(admitted)) {
        engine.workloadFinished(uid);
        admitted.remove(uid);
      }
      for (Admission a : engine.runCycle(now).admissions()) {
        admitted.add(a.workloadUid());
        pending.remove(a.workloadUid());
      }
    }
    assertThat(pending).as("released once no budget is spent").isEmpty();
  }
}
