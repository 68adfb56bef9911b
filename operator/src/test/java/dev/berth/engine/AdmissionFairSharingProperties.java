package dev.berth.engine;

import static dev.berth.engine.Builders.clusterQueue;
import static dev.berth.engine.Builders.flavor;
import static dev.berth.engine.Builders.workload;
import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.engine.model.AdmissionFairSharing;
import dev.berth.engine.model.LocalQueue;
import dev.berth.engine.model.StopPolicy;
import java.util.List;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/** Admission fair sharing changes nothing where no LocalQueue has used anything. */
class AdmissionFairSharingProperties {

  /**
   * Equal weights, no history and no entry penalty (half-life 0): every LocalQueue scores 0, so a
   * ClusterQueue ordering by usage admits exactly what the plain priority-then-FIFO order admits,
   * in the same order.
   */
  @Property(tries = 300)
  void withNoUsageTheOrderIsThePriorityAndFifoOrder(
      @ForAll @Size(min = 1, max = 30) List<@IntRange(min = 0, max = 215) Integer> shapes,
      @ForAll @IntRange(min = 1, max = 20) int quota,
      @ForAll boolean strictFifo) {
    assertThat(admissions(true, shapes, quota, strictFifo))
        .isEqualTo(admissions(false, shapes, quota, strictFifo));
  }

  /**
   * With recent usage, the first workload a cycle admits comes from a LocalQueue with the lowest
   * usage over its weight among those with a workload waiting, whatever the priorities and ages.
   */
  @Property(tries = 300)
  void theFirstAdmissionComesFromTheLeastUsedLocalQueue(
      @ForAll @Size(min = 1, max = 30) List<@IntRange(min = 0, max = 215) Integer> shapes,
      @ForAll @Size(value = 3) List<@IntRange(min = 0, max = 20) Integer> usedCores,
      @ForAll @Size(value = 3) List<@IntRange(min = 0, max = 4) Integer> weights) {
    AdmissionEngine engine = engine(true, false, 4);
    for (int lq = 0; lq < 3; lq++) {
      engine.upsertLocalQueue(
          new LocalQueue("default", "lq" + lq, "cq", StopPolicy.None, weights.get(lq) * 1000L));
      engine.restoreLocalQueueUsage(
          "default", "lq" + lq, Map.of("cpu", java.math.BigDecimal.valueOf(usedCores.get(lq))), 0);
    }
    submit(engine, shapes);
    double lowest = Double.POSITIVE_INFINITY;
    for (int i = 0; i < shapes.size(); i++) {
      int lq = shapes.get(i) % 3;
      lowest = Math.min(lowest, score(usedCores.get(lq), weights.get(lq)));
    }
    Admission first = engine.runCycle(1).admissions().get(0);
    int lq = Integer.parseInt(first.localQueue().substring(2));
    assertThat(score(usedCores.get(lq), weights.get(lq))).isEqualTo(lowest);
  }

  private static double score(int cores, int weight) {
    return weight == 0 ? Double.POSITIVE_INFINITY : (double) cores / weight;
  }

  /** Each shape number picks a LocalQueue (3), a priority (3), a size (1-4 cpu) and an age (6). */
  private static List<String> admissions(
      boolean usageOrdered, List<Integer> shapes, int quota, boolean strictFifo) {
    AdmissionEngine engine = engine(usageOrdered, strictFifo, quota);
    for (int lq = 0; lq < 3; lq++) {
      engine.upsertLocalQueue(new LocalQueue("default", "lq" + lq, "cq", StopPolicy.None));
    }
    submit(engine, shapes);
    return engine.runCycle(1).admissions().stream().map(Admission::name).toList();
  }

  private static AdmissionEngine engine(boolean usageOrdered, boolean strictFifo, int quota) {
    AdmissionEngine engine = new AdmissionEngine();
    engine.admissionFairSharing(new AdmissionFairSharing(0, 60_000, Map.of()));
    engine.upsertResourceFlavor(flavor("default").build());
    engine.upsertNamespace("default", Map.of());
    Builders.QueueBuilder cq = clusterQueue("cq");
    if (usageOrdered) {
      cq.usageBasedAdmissionFairSharing();
    }
    if (strictFifo) {
      cq.strictFifo();
    }
    engine.upsertClusterQueue(cq.flavor("default").res("cpu", Integer.toString(quota)).build());
    return engine;
  }

  private static void submit(AdmissionEngine engine, List<Integer> shapes) {
    for (int i = 0; i < shapes.size(); i++) {
      int s = shapes.get(i);
      engine.upsertWorkload(
          workload("w" + i)
              .queue("lq" + (s % 3))
              .priority((s / 3) % 3)
              .created((s / 36) % 6)
              .podSet("main", 1, "cpu", Integer.toString(1 + (s / 9) % 4))
              .build());
    }
  }
}
