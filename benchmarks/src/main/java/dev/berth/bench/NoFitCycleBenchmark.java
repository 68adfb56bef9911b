package dev.berth.bench;

import dev.berth.engine.AdmissionEngine;
import dev.berth.engine.CycleResult;
import dev.berth.engine.PodSetAssignment;
import dev.berth.engine.model.PodSet;
import dev.berth.engine.model.ResourceFlavor;
import dev.berth.engine.model.Workload;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The cost of one cycle with 50,000 pending workloads of which none fits: the "large" cluster with
 * every cohort full, 50 pending per ClusterQueue. {@code shapes=shared}: workloads of one kind
 * share podSets (as Jobs from one template do); {@code distinct}: every workload asks for a
 * different amount, the worst case for the engine's per-shape buckets.
 *
 * <ul>
 *   <li>{@code event=none}: no event since the last cycle (the common case and the target);
 *   <li>{@code finishInOneCohort}: a workload of one cohort finished (and its quota was taken
 *       again, so nothing fits): that cohort's parked workloads are re-evaluated;
 *   <li>{@code flavorChange}: a ResourceFlavor changed: the quota tree is rebuilt and every parked
 *       workload is re-evaluated (the worst case).
 * </ul>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@State(Scope.Thread)
public class NoFitCycleBenchmark {
  static final int COHORTS = 10;
  static final int QUEUES = 100;
  static final int PER_QUEUE = 50;

  @Param({"shared", "distinct"})
  public String shapes;

  @Param({"none", "finishInOneCohort", "flavorChange"})
  public String event;

  private AdmissionEngine engine;
  private long now = 1;

  @Setup(Level.Trial)
  public void setUp() {
    engine = fullCluster(shapes.equals("distinct"));
    CycleResult first = engine.runCycle(now++);
    if (!first.admissions().isEmpty() || engine.pendingCount() != COHORTS * QUEUES * PER_QUEUE) {
      throw new IllegalStateException("expected 50,000 pending and nothing admitted");
    }
  }

  /** The large cluster with every ClusterQueue using its 20 cpu nominal and 50 pending each. */
  static AdmissionEngine fullCluster(boolean distinct) {
    AdmissionEngine engine = fullClusterWithoutPending();
    addPending(engine, distinct);
    return engine;
  }

  /** Adds 50 pending workloads per ClusterQueue in the 7:2:1 mix of the issue. */
  static void addPending(AdmissionEngine engine, boolean distinct) {
    int n = 0;
    for (int c = 0; c < COHORTS; c++) {
      for (int q = 0; q < QUEUES; q++) {
        String queue = BenchCluster.queueName(c, q);
        for (int i = 0; i < PER_QUEUE; i++) {
          int kind = BenchCluster.kind(i, PER_QUEUE);
          Workload w = BenchCluster.workload("wl-" + c + "-" + q + "-" + i, queue, kind, i);
          if (distinct) {
            long cpu = BenchCluster.KINDS[kind][0] + (n % 997) + 1;
            w =
                new Workload(
                    w.uid(),
                    w.namespace(),
                    w.name(),
                    w.queueName(),
                    w.priority(),
                    w.queueTimestamp(),
                    List.of(new PodSet("main", 1, null, Map.of("cpu", cpu), null, null, null)));
          }
          engine.upsertWorkload(w);
          n++;
        }
      }
    }
  }

  /** The same full cluster without pending workloads (the baseline for heap measurements). */
  static AdmissionEngine fullClusterWithoutPending() {
    AdmissionEngine engine = BenchCluster.engine(COHORTS, QUEUES);
    for (int c = 0; c < COHORTS; c++) {
      for (int q = 0; q < QUEUES; q++) {
        recordRunning(engine, BenchCluster.queueName(c, q), "run-" + c + "-" + q);
      }
    }
    return engine;
  }

  static void recordRunning(AdmissionEngine engine, String queue, String uid) {
    Workload running =
        new Workload(
            uid,
            BenchCluster.NAMESPACE,
            uid,
            queue,
            0,
            0,
            List.of(new PodSet("main", 1, null, Map.of("cpu", 20_000L), null, null, null)));
    engine.recordAdmitted(
        running,
        queue,
        List.of(
            new PodSetAssignment(
                "main", Map.of("cpu", "default"), Map.of("cpu", 20_000L), 1, Map.of())),
        0);
  }

  /** What happened since the last cycle, applied outside the measured time. */
  @Setup(Level.Invocation)
  public void event() {
    switch (event) {
      case "finishInOneCohort" -> {
        // A release in cohort 0, then the quota is taken again, so nothing fits.
        engine.workloadFinished("run-0-0");
        recordRunning(engine, BenchCluster.queueName(0, 0), "run-0-0");
      }
      case "flavorChange" ->
          engine.upsertResourceFlavor(
              new ResourceFlavor(
                  "default", Map.of("revision", Long.toString(now)), List.of(), List.of()));
      default -> {
        // none: no event since the last cycle
      }
    }
  }

  @Benchmark
  public CycleResult cycle() {
    return engine.runCycle(now++);
  }
}
