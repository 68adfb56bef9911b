package dev.berth.bench;

import dev.berth.engine.Admission;
import dev.berth.engine.AdmissionEngine;
import dev.berth.engine.CycleResult;
import java.util.HashMap;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * Drains a queue of workloads on a simulated clock: each cycle admits what fits, the clock jumps
 * to the next finish time, and workloads finish after their runtime.
 */
final class Simulation {
  private final AdmissionEngine engine;
  private final Map<String, Long> runtimes = new HashMap<>();
  private final int total;
  long cycles;
  long evaluations;

  private record Finish(long at, String uid) {}

  Simulation(int cohorts, int queuesPerCohort, int perQueue) {
    engine = BenchCluster.engine(cohorts, queuesPerCohort);
    int n = 0;
    for (int c = 0; c < cohorts; c++) {
      for (int q = 0; q < queuesPerCohort; q++) {
        String queue = BenchCluster.queueName(c, q);
        for (int i = 0; i < perQueue; i++) {
          int kind = BenchCluster.kind(i, perQueue);
          String uid = "wl-" + c + "-" + q + "-" + i;
          engine.upsertWorkload(BenchCluster.workload(uid, queue, kind, i));
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

  /** Runs until everything has been admitted; returns the number of admissions. */
  int drain() {
    PriorityQueue<Finish> finishes = new PriorityQueue<>((a, b) -> Long.compare(a.at, b.at));
    long now = 0;
    int admitted = 0;
    while (true) {
      CycleResult r = engine.runCycle(now);
      cycles++;
      evaluations += r.evaluations();
      for (Admission a : r.admissions()) {
        finishes.add(new Finish(now + runtimes.get(a.workloadUid()), a.workloadUid()));
      }
      admitted += r.admissions().size();
      if (admitted == total || finishes.isEmpty()) {
        return admitted;
      }
      now = finishes.peek().at;
      while (!finishes.isEmpty() && finishes.peek().at <= now) {
        engine.workloadFinished(finishes.poll().uid);
      }
    }
  }
}
