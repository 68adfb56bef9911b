package dev.berth.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.engine.PreemptionProperties.Cluster;
import dev.berth.engine.PreemptionProperties.Job;
import dev.berth.engine.PreemptionProperties.QueueConfig;
import dev.berth.engine.model.ClusterQueue;
import dev.berth.engine.model.FlavorQuotas;
import dev.berth.engine.model.LabelSelector;
import dev.berth.engine.model.LocalQueue;
import dev.berth.engine.model.PodSet;
import dev.berth.engine.model.PreemptionPolicy;
import dev.berth.engine.model.ResourceFlavor;
import dev.berth.engine.model.ResourceGroup;
import dev.berth.engine.model.ResourceQuota;
import dev.berth.engine.model.StopPolicy;
import dev.berth.engine.model.Workload;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.From;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * With fair sharing, a cohort where every queue has a backlog ends near the weighted ideal, also
 * while workloads keep finishing and with fair-sharing preemption on; and that preemption never
 * goes in a circle.
 */
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
    AdmissionEngine engine =
        new AdmissionEngine(new FairSharingOrdering(), new ClassicalPreemption());
    engine.upsertResourceFlavor(ResourceFlavor.named("f"));
    engine.upsertNamespace("ns", Map.of());
    engine.upsertClusterQueue(queue("lender", pool, 1));
    for (int i = 0; i < weights.size(); i++) {
      engine.upsertClusterQueue(queue("cq" + i, 0, weights.get(i)));
      engine.upsertLocalQueue(new LocalQueue("ns", "lq" + i, "cq" + i, StopPolicy.None));
      for (int k = 0; k <= pool; k++) {
        engine.upsertWorkload(
            new Workload(
                "w" + i + "-" + k,
                "ns",
                null,
                "lq" + i,
                0,
                k,
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
        assertThat((used[i] - 1) * weights.get(j))
            .as(
                "queue %s (weight %s, %s) vs %s (weight %s, %s)",
                i, weights.get(i), used[i], j, weights.get(j), used[j])
            .isLessThanOrEqualTo((used[j] + 1) * weights.get(i));
      }
    }
  }

  /**
   * Queues with no quota of their own (reclaimWithinCohort Any, so fair-sharing preemption may act)
   * and a deep backlog of equal 1-cpu workloads; rounds of: cycle, the operator completes the
   * requested evictions, random admitted workloads finish. Once a cycle changes nothing, the pool
   * is full and every queue is within one workload of the weighted ideal.
   */
  @Property(tries = 150)
  void backloggedQueuesStayNearTheWeightedIdealWhileWorkloadsFinish(
      @ForAll @Size(min = 2, max = 4) List<@IntRange(min = 1, max = 4) Integer> weights,
      @ForAll @IntRange(min = 2, max = 24) int pool,
      @ForAll @IntRange(min = 1, max = 8) int rounds,
      @ForAll long seed) {
    Random random = new Random(seed);
    AdmissionEngine engine =
        new AdmissionEngine(new FairSharingOrdering(), new ClassicalPreemption());
    engine.upsertResourceFlavor(ResourceFlavor.named("f"));
    engine.upsertNamespace("ns", Map.of());
    engine.upsertClusterQueue(queue("lender", pool, 1, PreemptionPolicy.NEVER));
    int backlog = pool * (rounds + 2);
    for (int i = 0; i < weights.size(); i++) {
      engine.upsertClusterQueue(queue("cq" + i, 0, weights.get(i), RECLAIM_ANY));
      engine.upsertLocalQueue(new LocalQueue("ns", "lq" + i, "cq" + i, StopPolicy.None));
      for (int k = 0; k < backlog; k++) {
        engine.upsertWorkload(
            new Workload(
                "w" + i + "-" + k,
                "ns",
                null,
                "lq" + i,
                0,
                k,
                List.of(new PodSet("main", 1, null, Map.of("cpu", 1000L), null, null, null))));
      }
    }
    List<String> admitted = new ArrayList<>();
    long now = 1;
    for (int round = 0; round < rounds; round++) {
      now = settle(engine, admitted, now);
      // Some admitted workloads finish.
      int finishing = 1 + random.nextInt(Math.max(1, admitted.size() / 2));
      for (int f = 0; f < finishing && !admitted.isEmpty(); f++) {
        engine.workloadFinished(admitted.remove(random.nextInt(admitted.size())));
      }
    }
    settle(engine, admitted, now);
    assertThat(admitted).as("the pool is full").hasSize(pool);
    long[] used = new long[weights.size()];
    for (int i = 0; i < used.length; i++) {
      used[i] = engine.status().usage("cq" + i, "f", "cpu") / 1000;
    }
    for (int i = 0; i < used.length; i++) {
      for (int j = 0; j < used.length; j++) {
        assertThat((used[i] - 1) * weights.get(j))
            .as(
                "queue %s (weight %s, %s) vs %s (weight %s, %s)",
                i, weights.get(i), used[i], j, weights.get(j), used[j])
            .isLessThanOrEqualTo((used[j] + 1) * weights.get(i));
      }
    }
  }

  /**
   * Cycles until one admits and evicts nothing; evictions are completed by the operator at once.
   */
  private static long settle(AdmissionEngine engine, List<String> admitted, long now) {
    for (int i = 0; i < 200; i++) {
      CycleResult r = engine.runCycle(now++);
      r.admissions().forEach(a -> admitted.add(a.workloadUid()));
      for (Eviction e : r.evictions()) {
        admitted.remove(e.workloadUid());
        engine.workloadEvicted(e.workloadUid(), now++);
      }
      if (r.admissions().isEmpty() && r.evictions().isEmpty()) {
        return now;
      }
    }
    throw new AssertionError("no settling within 200 cycles");
  }

  /**
   * Random cohorts, policies, weights, running and arriving workloads with fair sharing on, as the
   * operator runs it: replayed until nothing changes, no workload preempts one that preempted it,
   * and it settles.
   */
  @Property(tries = 300)
  void fairSharingPreemptionNeverGoesInACircle(
      @ForAll @Size(min = 2, max = 3) List<@From("queue") QueueConfig> queues,
      @ForAll @Size(min = 1, max = 3) List<@IntRange(min = 0, max = 3) Integer> weights,
      @ForAll @Size(min = 3, max = 12) List<@From("job") Job> running,
      @ForAll @Size(min = 1, max = 6) List<@From("preemptor") Job> arriving) {
    // The one strategy list the operator's configuration accepts: with LessThanInitialShare the
    // queues may take turns for ever (MinimumRuntimeProperties keeps such a loop).
    replayUntilQuiet(
        new FairSharingPreemption(List.of(FairSharingStrategy.LessThanOrEqualToFinalShare)),
        queues,
        weights,
        running,
        arriving);
  }

  private static void replayUntilQuiet(
      FairSharingPreemption planner,
      List<QueueConfig> queues,
      List<Integer> weights,
      List<Job> running,
      List<Job> arriving) {
    List<Long> w = weights.stream().map(x -> x * 1000L).toList();
    Cluster c =
        new Cluster(queues, running, new AdmissionEngine(new FairSharingOrdering(), planner), w);
    arriving.forEach(c::submit);
    Set<String> pairs = new HashSet<>();
    int quietCycles = 0;
    for (int i = 0; i < 80 && quietCycles < 3; i++) {
      CycleResult r = c.engine.runCycle(c.now += 10);
      c.checkQuota();
      if (r.evictions().isEmpty()) {
        quietCycles++;
        continue;
      }
      quietCycles = 0;
      for (Eviction e : r.evictions()) {
        assertThat(pairs)
            .as("%s evicts %s after being evicted by it", e.preemptorUid(), e.workloadUid())
            .doesNotContain(e.workloadUid() + ">" + e.preemptorUid());
        pairs.add(e.preemptorUid() + ">" + e.workloadUid());
      }
      for (Eviction e : r.evictions()) {
        c.engine.workloadEvicted(e.workloadUid(), c.now += 1);
        c.checkQuota();
      }
    }
    assertThat(quietCycles).as("fair-sharing preemption settles on a stable input").isEqualTo(3);
  }

  @net.jqwik.api.Provide
  net.jqwik.api.Arbitrary<QueueConfig> queue() {
    return new PreemptionProperties().queue();
  }

  @net.jqwik.api.Provide
  net.jqwik.api.Arbitrary<Job> job() {
    return new PreemptionProperties().job();
  }

  @net.jqwik.api.Provide
  net.jqwik.api.Arbitrary<Job> preemptor() {
    return new PreemptionProperties().preemptor();
  }

  private static final PreemptionPolicy RECLAIM_ANY =
      new PreemptionPolicy(
          PreemptionPolicy.WithinClusterQueue.Never,
          PreemptionPolicy.ReclaimWithinCohort.Any,
          PreemptionPolicy.BorrowWithinCohort.Never,
          null);

  private static ClusterQueue queue(String name, int cpu, int weight) {
    return queue(name, cpu, weight, null);
  }

  private static ClusterQueue queue(String name, int cpu, int weight, PreemptionPolicy preemption) {
    return new ClusterQueue(
        name,
        "c",
        List.of(
            new ResourceGroup(
                List.of("cpu"),
                List.of(new FlavorQuotas("f", List.of(ResourceQuota.of("cpu", cpu * 1000L)))))),
        null,
        LabelSelector.ALL,
        null,
        preemption,
        StopPolicy.None,
        weight * 1000L);
  }
}
