package dev.berth.bench;

import dev.berth.engine.AdmissionEngine;

/**
 * Engine heap per pending workload: used heap (after GC) of the large cluster with 50,000 parked
 * workloads minus the same cluster with none, divided by 50,000. The workloads are built fresh for
 * every call, as the operator would translate them, and not retained by this class. Run: java -cp
 * benchmarks/target/benchmarks.jar dev.berth.bench.HeapPerPendingWorkload
 */
public final class HeapPerPendingWorkload {
  private HeapPerPendingWorkload() {}

  public static void main(String[] args) {
    for (boolean distinct : new boolean[] {false, true}) {
      AdmissionEngine engine = NoFitCycleBenchmark.fullClusterWithoutPending();
      engine.runCycle(0);
      long base = usedAfterGc();
      NoFitCycleBenchmark.addPending(engine, distinct);
      engine.runCycle(1);
      long used = usedAfterGc();
      int pending = engine.pendingCount();
      System.out.printf(
          "shapes=%s: %d pending workloads, %d bytes of engine heap each (%.2f MiB in total)%n",
          distinct ? "distinct" : "shared",
          pending,
          (used - base) / pending,
          (used - base) / 1048576.0);
    }
  }

  static long usedAfterGc() {
    Runtime rt = Runtime.getRuntime();
    long used = Long.MAX_VALUE;
    for (int i = 0; i < 5; i++) {
      System.gc();
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      used = Math.min(used, rt.totalMemory() - rt.freeMemory());
    }
    return used;
  }
}
