package dev.berth.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
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
 * Scenarios (a) "baseline" (5 cohorts x 6 ClusterQueues x 500 workloads) and (b) "large" (10 x 100
 * x 50), and "large-late" (the same, with the highest-priority kind arriving after the first
 * cycle): drain every workload on a simulated clock, with preemption "off" or "on". One benchmark
 * operation is a whole drain; the {@code admissions} counter is reported as admissions per second.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@State(Scope.Thread)
public class AdmissionThroughputBenchmark {
  @Param({"baseline", "large", "large-late"})
  public String scenario;

  /** "on": every ClusterQueue has BenchCluster.PREEMPTION (ClassicalPreemption plans victims). */
  @Param({"off", "on"})
  public String preemption;

  private Simulation simulation;

  /** Counted as operations, so JMH reports admissions per second next to drains per second. */
  @AuxCounters(AuxCounters.Type.OPERATIONS)
  @State(Scope.Thread)
  public static class Counters {
    public long admissions;
  }

  @Setup(Level.Invocation)
  public void setUp() {
    simulation = null;
    // Collect the previous drain's engine now, outside the measured time, so that its garbage is
    // not billed to the next drain; the drain's own garbage still is.
    System.gc();
    boolean on = preemption.equals("on");
    simulation =
        scenario.equals("baseline")
            ? new Simulation(5, 6, 500, on)
            : new Simulation(10, 100, 50, on, scenario.equals("large-late"));
  }

  @Benchmark
  public int drain(Counters counters) {
    int n = simulation.drain();
    counters.admissions += n;
    return n;
  }
}
