package dev.berth.bench;

import dev.berth.engine.AdmissionEngine;
import dev.berth.engine.model.ResourceFlavor;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The same scenarios as the JMH benchmarks, timed by this thread's CPU time as well as wall time.
 * The benchmark machine is shared, and CPU time is what "one core" means when other processes
 * compete for the cores. Prints the median of the rounds after warm-up. Run: java -cp
 * benchmarks/target/benchmarks.jar dev.berth.bench.CpuTimeReport [rounds]
 */
public final class CpuTimeReport {
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  private CpuTimeReport() {}

  public static void main(String[] args) {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
    drains("baseline", 5, 6, 500, false, rounds);
    drains("large", 10, 100, 50, false, rounds);
    drains("baseline", 5, 6, 500, true, rounds);
    drains("large", 10, 100, 50, true, rounds);
    drains("large-late", 10, 100, 50, false, rounds);
    drains("large-late", 10, 100, 50, true, rounds);
    drains("large-fair", 10, 100, 50, true, rounds);
    drains("large-late-fair", 10, 100, 50, true, rounds);
    for (boolean distinct : new boolean[] {false, true}) {
      cycles(distinct, rounds);
    }
  }

  private static void drains(
      String name, int cohorts, int queues, int perQueue, boolean preemption, int rounds) {
    double[] wall = new double[rounds];
    double[] cpu = new double[rounds];
    int n = 0;
    long evictions = 0;
    long cycles = 0;
    for (int r = -3; r < rounds; r++) {
      Simulation s =
          new Simulation(
              cohorts,
              queues,
              perQueue,
              preemption,
              name.contains("-late"),
              name.endsWith("-fair"));
      System.gc();
      long c0 = THREADS.getCurrentThreadCpuTime();
      long t0 = System.nanoTime();
      n = s.drain();
      long t1 = System.nanoTime();
      long c1 = THREADS.getCurrentThreadCpuTime();
      evictions = s.evictions;
      cycles = s.cycles;
      if (r >= 0) {
        wall[r] = n / ((t1 - t0) / 1e9);
        cpu[r] = n / ((c1 - c0) / 1e9);
      }
    }
    System.out.printf(
        "%-15s preemption %-3s drain: %d admissions, %d preemptions, %d cycles: median %.0f admissions/s"
            + " by CPU time (%.0f by wall time)%n",
        name, preemption ? "on" : "off", n, evictions, cycles, median(cpu), median(wall));
  }

  private static void cycles(boolean distinct, int rounds) {
    AdmissionEngine engine = NoFitCycleBenchmark.fullCluster(distinct);
    engine.runCycle(0);
    long now = 1;
    String shapes = distinct ? "distinct" : "shared";
    for (String event : List.of("none", "finishInOneCohort", "flavorChange")) {
      int samples = event.equals("none") ? 10_000 : rounds * 3;
      double[] cpu = new double[samples];
      double[] wall = new double[samples];
      int evaluations = 0;
      for (int i = -samples / 3; i < samples; i++) {
        if (event.equals("finishInOneCohort")) {
          engine.workloadFinished("run-0-0");
          NoFitCycleBenchmark.recordRunning(engine, BenchCluster.queueName(0, 0), "run-0-0");
        } else if (event.equals("flavorChange")) {
          engine.upsertResourceFlavor(
              new ResourceFlavor(
                  "default", Map.of("revision", Long.toString(now)), List.of(), List.of()));
        }
        long c0 = THREADS.getCurrentThreadCpuTime();
        long t0 = System.nanoTime();
        evaluations = engine.runCycle(now++).evaluations();
        long t1 = System.nanoTime();
        long c1 = THREADS.getCurrentThreadCpuTime();
        if (i >= 0) {
          cpu[i] = (c1 - c0) / 1e3;
          wall[i] = (t1 - t0) / 1e3;
        }
      }
      System.out.printf(
          "no-fit cycle, 50,000 pending, shapes=%s, event=%s: %d evaluations, median %.3f us CPU (%.3f us wall)%n",
          shapes, event, evaluations, median(cpu), median(wall));
    }
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }
}
