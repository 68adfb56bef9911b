package dev.berth.bench;

import dev.berth.engine.Admission;
import dev.berth.engine.AdmissionEngine;
import dev.berth.engine.CycleResult;
import dev.berth.engine.Eviction;
import dev.berth.engine.model.Workload;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * Drains a queue of workloads on a simulated clock: each cycle admits what fits, the clock jumps to
 * the next finish time, and workloads finish after their runtime. A preempted workload is reported
 * evicted right after the cycle (its pods stop at once) and runs again from the start when
 * readmitted.
 */
final class Simulation {
  private final AdmissionEngine engine;
  private final Map<String, Long> runtimes = new HashMap<>();
  private final int total;

  /** Admission number of each running workload, so a preempted run's finish is ignored. */
  private final Map<String, Integer> runs = new HashMap<>();

  private final List<Workload> late = new ArrayList<>();
  long cycles;
  long evaluations;
  long evictions;

  private record Finish(long at, String uid, int run) {}

  Simulation(int cohorts, int queuesPerCohort, int perQueue) {
    this(cohorts, queuesPerCohort, perQueue, false);
  }

  Simulation(int cohorts, int queuesPerCohort, int perQueue, boolean preemption) {
    this(cohorts, queuesPerCohort, perQueue, preemption, false);
  }

  /**
   * With {@code lateHighPriority}, the highest-priority kind arrives only after the first cycle,
   * when the cohorts are full of lower-priority borrowers: with preemption on, they preempt.
   */
  Simulation(
      int cohorts,
      int queuesPerCohort,
      int perQueue,
      boolean preemption,
      boolean lateHighPriority) {
    this(cohorts, queuesPerCohort, perQueue, preemption, lateHighPriority, false);
  }

  Simulation(
      int cohorts,
      int queuesPerCohort,
      int perQueue,
      boolean preemption,
      boolean lateHighPriority,
      boolean fairSharing) {
    engine = BenchCluster.engine(cohorts, queuesPerCohort, preemption, fairSharing);
    int n = 0;
    for (int c = 0; c < cohorts; c++) {
      for (int q = 0; q < queuesPerCohort; q++) {
        String queue = BenchCluster.queueName(c, q);
        for (int i = 0; i < perQueue; i++) {
          int kind = BenchCluster.kind(i, perQueue);
          String uid = "wl-" + c + "-" + q + "-" + i;
          if (lateHighPriority && kind == 2) {
            late.add(BenchCluster.workload(uid, queue, kind, i));
          } else {
            engine.upsertWorkload(BenchCluster.workload(uid, queue, kind, i));
          }
          runtimes.put(uid, BenchCluster.KINDS[kind][2]);
          n++;
        }
      }
    }
    total = n;
  }

  int total() {
    return total;
  }

  /**
   * Runs until nothing is pending (everything has been admitted, and readmitted after any
   * preemption); returns the number of admissions.
   */
  int drain() {
    PriorityQueue<Finish> finishes = new PriorityQueue<>((a, b) -> Long.compare(a.at, b.at));
    long now = 0;
    int admitted = 0;
    int run = 0;
    while (true) {
      CycleResult r = engine.runCycle(now);
      cycles++;
      evaluations += r.evaluations();
      for (Admission a : r.admissions()) {
        runs.put(a.workloadUid(), ++run);
        finishes.add(new Finish(now + runtimes.get(a.workloadUid()), a.workloadUid(), run));
      }
      admitted += r.admissions().size();
      for (Eviction e : r.evictions()) {
        runs.remove(e.workloadUid());
        engine.workloadEvicted(e.workloadUid(), now);
        evictions++;
      }
      if (cycles == 1 && !late.isEmpty()) {
        // The late kind arrives now, before anything finishes.
        late.forEach(engine::upsertWorkload);
        late.clear();
        continue;
      }
      if (!r.evictions().isEmpty()) {
        continue;
      }
      if (engine.pendingCount() == 0 || finishes.isEmpty()) {
        return admitted;
      }
      now = finishes.peek().at;
      while (!finishes.isEmpty() && finishes.peek().at <= now) {
        Finish f = finishes.poll();
        Integer current = runs.get(f.uid);
        if (current != null && current == f.run) {
          runs.remove(f.uid);
          engine.workloadFinished(f.uid);
        }
      }
    }
  }
}
