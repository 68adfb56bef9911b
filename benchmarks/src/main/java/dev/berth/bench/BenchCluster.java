package dev.berth.bench;

import dev.berth.engine.AdmissionEngine;
import dev.berth.engine.ClassicalPreemption;
import dev.berth.engine.FairSharingOrdering;
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
import java.util.List;
import java.util.Map;

/**
 * The benchmark cluster: cohorts x ClusterQueues with 20 cpu nominal and a borrowing limit
 * of 100 cpu, one LocalQueue each, and workloads of three kinds in the ratio 350:100:50.
 */
final class BenchCluster {
  static final String NAMESPACE = "bench";

  /** cpu (millis), priority, runtime (ms) of the three kinds. */
  static final long[][] KINDS = {{1000, 50, 200}, {5000, 100, 500}, {20000, 200, 1000}};

  private BenchCluster() {}

  /**
   * With {@code preemption}, every ClusterQueue preempts lower priorities in its own queue,
   * reclaims lent quota from any borrower, and preempts lower priorities while borrowing.
   */
  static final PreemptionPolicy PREEMPTION =
      new PreemptionPolicy(
          PreemptionPolicy.WithinClusterQueue.LowerPriority,
          PreemptionPolicy.ReclaimWithinCohort.Any,
          PreemptionPolicy.BorrowWithinCohort.LowerPriority,
          null);

  static AdmissionEngine engine(int cohorts, int queuesPerCohort) {
    return engine(cohorts, queuesPerCohort, false);
  }

  static AdmissionEngine engine(int cohorts, int queuesPerCohort, boolean preemption) {
    return engine(cohorts, queuesPerCohort, preemption, false);
  }

  /** With {@code fairSharing}, entries are ordered by FairSharingOrdering (all weights 1). */
  static AdmissionEngine engine(
      int cohorts, int queuesPerCohort, boolean preemption, boolean fairSharing) {
    AdmissionEngine engine =
        fairSharing
            ? new AdmissionEngine(new FairSharingOrdering(), new ClassicalPreemption())
            : new AdmissionEngine();
    engine.upsertResourceFlavor(ResourceFlavor.named("default"));
    engine.upsertNamespace(NAMESPACE, Map.of());
    for (int c = 0; c < cohorts; c++) {
      for (int q = 0; q < queuesPerCohort; q++) {
        String name = queueName(c, q);
        engine.upsertClusterQueue(
            new ClusterQueue(
                name,
                "cohort-" + c,
                List.of(
                    new ResourceGroup(
                        List.of("cpu"),
                        List.of(
                            new FlavorQuotas(
                                "default",
                                List.of(new ResourceQuota("cpu", 20_000, 100_000L, null)))))),
                null,
                LabelSelector.ALL,
                null,
                preemption ? PREEMPTION : null,
                StopPolicy.None));
        engine.upsertLocalQueue(new LocalQueue(NAMESPACE, name, name, StopPolicy.None));
      }
    }
    return engine;
  }

  static String queueName(int cohort, int queue) {
    return "cq-" + cohort + "-" + queue;
  }

  /** The kind of the i-th workload of a queue with {@code perQueue} workloads (ratio 7:2:1). */
  static int kind(int i, int perQueue) {
    int small = perQueue * 7 / 10;
    int medium = perQueue * 2 / 10;
    return i < small ? 0 : i < small + medium ? 1 : 2;
  }

  static Workload workload(String uid, String queue, int kind, long created) {
    long[] k = KINDS[kind];
    return new Workload(
        uid,
        NAMESPACE,
        uid,
        queue,
        (int) k[1],
        created,
        List.of(new PodSet("main", 1, null, Map.of("cpu", k[0]), null, null, null)));
  }
}
