package dev.berth.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.engine.BudgetHoldProperties.Step;
import dev.berth.engine.model.LocalQueue;
import dev.berth.engine.model.PreemptionPolicy;
import dev.berth.engine.model.ResourceFlavor;
import dev.berth.engine.model.SpentBudgets;
import dev.berth.engine.model.StopPolicy;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.From;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;

/**
 * Random arrivals, finishes and budgets spent (some letting their workloads run on idle capacity)
 * and renewed, as the steps of {@link BudgetHoldProperties}, over three LocalQueues of one
 * ClusterQueue of 6 cpu that preempts lower priorities: a workload over its budget never causes a
 * preemption, is marked when admitted, and a workload within its budget is evicted only when
 * evicting every workload on idle capacity would not have made room for the preemptor.
 */
class IdleCapacityProperties {
  private static final int CAPACITY = 6;

  /** A LocalQueue's budget: not spent, spent and waiting, spent and running on idle capacity. */
  private enum Mode {
    WITHIN,
    WAIT,
    IDLE
  }

  /** Budgets 0 to 26: each of the three LocalQueues within, waiting or on idle capacity. */
  @Provide
  Arbitrary<Step> step() {
    return BudgetHoldProperties.steps(4, 26);
  }

  private static Mode mode(int budgets, int queue) {
    int m = budgets;
    for (int i = 0; i < queue; i++) {
      m /= 3;
    }
    return Mode.values()[m % 3];
  }

  private static SpentBudgets spent(int budgets) {
    Map<String, String> lqs = new HashMap<>();
    Set<String> idle = new HashSet<>();
    for (int q = 0; q < 3; q++) {
      Mode m = mode(budgets, q);
      if (m != Mode.WITHIN) {
        String message = "budget of ns" + q + " spent";
        lqs.put("ns" + q + "/lq", message);
        if (m == Mode.IDLE) {
          idle.add(message);
        }
      }
    }
    return new SpentBudgets(lqs, Map.of(), Map.of(), idle);
  }

  @Property(tries = 500)
  void overBudgetWorkloadsNeverPreemptAndGoFirst(
      @ForAll @Size(min = 1, max = 60) List<@From("step") Step> steps) {
    AdmissionEngine engine = new AdmissionEngine();
    engine.upsertResourceFlavor(ResourceFlavor.named("f"));
    PreemptionPolicy within = BudgetHoldProperties.LOWER_PRIORITY_WITHIN;
    engine.upsertClusterQueue(MinimumRuntimeProperties.queue("a", CAPACITY, 1000L, within, 0L));
    for (int i = 0; i < 3; i++) {
      engine.upsertNamespace("ns" + i, Map.of());
      engine.upsertLocalQueue(new LocalQueue("ns" + i, "lq", "a", StopPolicy.None));
    }
    int budgets = 0;
    Map<String, Integer> queueOf = new HashMap<>();
    Map<String, Integer> cpuOf = new HashMap<>();
    Set<String> admitted = new HashSet<>();
    long now = 0;
    int n = 0;
    for (Step step : steps) {
      now += 1_000;
      String arrival = "w" + n;
      if (step.kind() == 0) {
        n++;
        queueOf.put(arrival, step.queue());
        cpuOf.put(arrival, step.cpu());
      }
      if (!BudgetHoldProperties.arriveOrFinish(engine, step, arrival, now, admitted)) {
        budgets = step.budgets();
        engine.budgets(spent(budgets));
      }
      // Before the cycle: what is free, and what runs on idle capacity.
      int free = CAPACITY;
      int idle = 0;
      for (String uid : admitted) {
        free -= cpuOf.get(uid);
        if (engine.onIdleCapacity(uid).isPresent()) {
          idle += cpuOf.get(uid);
        }
      }
      CycleResult r = engine.runCycle(now);
      for (Admission a : r.admissions()) {
        Mode m = mode(budgets, queueOf.get(a.workloadUid()));
        assertThat(m)
            .as("%s admitted while its budget makes it wait", a.workloadUid())
            .isNotEqualTo(Mode.WAIT);
        assertThat(engine.onIdleCapacity(a.workloadUid()).isPresent())
            .as("%s marked as running on idle capacity", a.workloadUid())
            .isEqualTo(m == Mode.IDLE);
        admitted.add(a.workloadUid());
      }
      for (Eviction e : r.newEvictions()) {
        assertThat(mode(budgets, queueOf.get(e.preemptorUid())))
            .as("%s preempts %s, over its budget", e.preemptorUid(), e.workloadUid())
            .isEqualTo(Mode.WITHIN);
        boolean victimWithinBudget = engine.onIdleCapacity(e.workloadUid()).isEmpty();
        if (victimWithinBudget && r.admissions().isEmpty()) {
          assertThat(free + idle)
              .as(
                  "%s evicted within its budget for %s, where the %s cpu on idle capacity and %s"
                      + " free would have made room",
                  e.workloadUid(), e.preemptorUid(), idle, free)
              .isLessThan(cpuOf.get(e.preemptorUid()));
        }
      }
      for (Eviction e : r.evictions()) {
        engine.workloadEvicted(e.workloadUid(), now);
        admitted.remove(e.workloadUid());
      }
    }
  }
}
