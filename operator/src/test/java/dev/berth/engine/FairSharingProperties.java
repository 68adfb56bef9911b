package dev.berth.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.engine.model.ClusterQueue;
import dev.berth.engine.model.FlavorQuotas;
import dev.berth.engine.model.LabelSelector;
import dev.berth.engine.model.LocalQueue;
import dev.berth.engine.model.PodSet;
import dev.berth.engine.model.ResourceFlavor;
import dev.berth.engine.model.ResourceGroup;
import dev.berth.engine.model.ResourceQuota;
import dev.berth.engine.model.StopPolicy;
import dev.berth.engine.model.Workload;
import java.util.List;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/** With fair sharing, a cohort where every queue has a backlog ends near the weighted ideal. */
class FairSharingProperties {

  /**
   * Queues with no quota of their own borrow everything from an idle lender; each has more 1-cpu
   * workloads than the pool holds. After one cycle, every queue is within one workload of the
   * weighted ideal: no queue could give one workload to another and get closer to it.
   */
  @Property(tries = 200)
  void backloggedQueuesConvergeToTheWeightedIdeal(
      @ForAll @Size(min = 2, max = 5) List<@IntRange(min = 1, max = 4) Integer> weights,
      @ForAll @IntRange(min = 1, max = 40) int pool) {
    AdmissionEngine engine = new AdmissionEngine(new FairSharingOrdering(), new ClassicalPreemption());
    engine.upsertResourceFlavor(ResourceFlavor.named("f"));
    engine.upsertNamespace("ns", Map.of());
    engine.upsertClusterQueue(queue("lender", pool, 1));
    for (int i = 0; i < weights.size(); i++) {
      engine.upsertClusterQueue(queue("cq" + i, 0, weights.get(i)));
      engine.upsertLocalQueue(new LocalQueue("ns", "lq" + i, "cq" + i, StopPolicy.None));
      for (int k = 0; k <= pool; k++) {
        engine.upsertWorkload(new Workload("w" + i + "-" + k, "ns", null, "lq" + i, 0, k,
            List.of(new PodSet("main", 1, null, Map.of("cpu", 1000L), null, null, null))));
      }
    }
    CycleResult r = engine.runCycle(1);
    assertThat(r.admissions()).hasSize(pool);
    long[] used = new long[weights.size()];
    for (Admission a : r.admissions()) {
      used[Integer.parseInt(a.clusterQueue().substring(2))]++;
    }
    for (int i = 0; i < used.length; i++) {
      for (int j = 0; j < used.length; j++) {
        // (used_i - 1) / w_i <= (used_j + 1) / w_j, in integers.
        assertThat((used[i] - 1) * weights.get(j)).as("queue %s (weight %s, %s) vs %s (weight %s, %s)",
                i, weights.get(i), used[i], j, weights.get(j), used[j])
            .isLessThanOrEqualTo((used[j] + 1) * weights.get(i));
      }
    }
  }

  private static ClusterQueue queue(String name, int cpu, int weight) {
    return new ClusterQueue(name, "c",
        List.of(new ResourceGroup(List.of("cpu"),
            List.of(new FlavorQuotas("f", List.of(ResourceQuota.of("cpu", cpu * 1000L)))))),
        null, LabelSelector.ALL, null, null, StopPolicy.None, weight * 1000L);
  }
}
