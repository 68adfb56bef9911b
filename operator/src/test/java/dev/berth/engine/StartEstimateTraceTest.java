package dev.berth.engine;

import static dev.berth.engine.Builders.clusterQueue;
import static dev.berth.engine.Builders.flavor;
import static dev.berth.engine.Builders.localQueue;
import static dev.berth.engine.Builders.workload;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Start-time estimates checked against a deterministic trace: workloads arrive and run on a
 * simulated clock through the engine, every arrival asks the replay for estimates, and each
 * workload's estimate made when it arrived is compared with when it actually started. Prints the
 * mean absolute error (MAE).
 */
class StartEstimateTraceTest {

  /** One workload of the trace: when it arrives, how many cpus, how long it really runs. */
  record Job(String name, long arrival, int cpus, long runtime) {}

  /** What a trace run measured over the workloads that had to wait. */
  record Outcome(int waited, double maeSeconds, double meanWaitSeconds, int unknown) {}

  static List<Job> trace(long seed, int n, long meanGapMillis, long meanRuntimeMillis) {
    Random r = new Random(seed);
    List<Job> jobs = new ArrayList<>();
    long t = 0;
    for (int i = 0; i < n; i++) {
      t += (long) (-Math.log(1 - r.nextDouble()) * meanGapMillis);
      // Runtimes spread over a factor of ~4 around the mean, rounded to whole seconds.
      long runtime = (long) (meanRuntimeMillis * (0.4 + 1.2 * r.nextDouble())) / 1000 * 1000;
      jobs.add(new Job(String.format("w%03d", i), t, 1 + r.nextInt(4), runtime));
    }
    return jobs;
  }

  /**
   * Runs the trace through an engine with one ClusterQueue of 8 cpus. With {@code withLimits} each
   * workload declares its true runtime as its maximum execution time; otherwise the replay must
   * learn runtimes from those that finished.
   */
  static Outcome run(List<Job> jobs, boolean strictFifo, boolean withLimits) {
    AdmissionEngine engine = new AdmissionEngine();
    engine.upsertResourceFlavor(flavor("default").build());
    var cq = clusterQueue("cq");
    engine.upsertClusterQueue(
        (strictFifo ? cq.strictFifo() : cq).flavor("default").res("cpu", "8").build());
    engine.upsertLocalQueue(localQueue("lq", "cq"));
    Map<String, Job> byName = new HashMap<>();
    jobs.forEach(j -> byName.put(j.name(), j));
    Map<String, Long> deadlines = new HashMap<>();
    Map<String, Long> budgets = new HashMap<>();
    Map<String, Long> started = new HashMap<>();
    Map<String, StartEstimate> estimatedOnArrival = new HashMap<>();
    record Finish(long at, String uid) {}
    PriorityQueue<Finish> running =
        new PriorityQueue<>(
            java.util.Comparator.comparingLong(Finish::at).thenComparing(Finish::uid));
    int next = 0;
    while (next < jobs.size() || !running.isEmpty()) {
      long t =
          running.isEmpty()
              ? jobs.get(next).arrival()
              : next >= jobs.size()
                  ? running.peek().at()
                  : Math.min(jobs.get(next).arrival(), running.peek().at());
      while (!running.isEmpty() && running.peek().at() == t) {
        Finish f = running.poll();
        engine.workloadFinished(f.uid());
        engine.recordRuntime("cq", f.uid(), t, t - started.get(f.uid()));
        deadlines.remove(f.uid());
      }
      List<String> arrived = new ArrayList<>();
      while (next < jobs.size() && jobs.get(next).arrival() == t) {
        Job j = jobs.get(next++);
        engine.upsertWorkload(
            workload(j.name())
                .created(t)
                .podSet("main", 1, "cpu", String.valueOf(j.cpus()))
                .build());
        if (withLimits) {
          budgets.put(j.name(), j.runtime());
        }
        arrived.add(j.name());
      }
      for (CycleResult r = engine.runCycle(t); !r.admissions().isEmpty(); r = engine.runCycle(t)) {
        for (Admission a : r.admissions()) {
          started.put(a.workloadUid(), t);
          long end = t + byName.get(a.workloadUid()).runtime();
          running.add(new Finish(end, a.workloadUid()));
          budgets.remove(a.workloadUid());
          if (withLimits) {
            deadlines.put(a.workloadUid(), end);
          }
        }
      }
      if (arrived.stream().anyMatch(engine::isPending)) {
        Map<String, StartEstimate> est = engine.estimateStarts(t, deadlines, budgets);
        arrived.stream()
            .filter(engine::isPending)
            .forEach(uid -> estimatedOnArrival.put(uid, est.get(uid)));
      }
    }
    double errors = 0;
    double waits = 0;
    int known = 0;
    int unknown = 0;
    for (var e : estimatedOnArrival.entrySet()) {
      long actual = started.get(e.getKey());
      if (!e.getValue().known()) {
        unknown++;
        continue;
      }
      known++;
      errors += Math.abs(e.getValue().startAt() - actual);
      waits += actual - byName.get(e.getKey()).arrival();
    }
    return new Outcome(known, errors / known / 1000, waits / known / 1000, unknown);
  }

  private static void print(String what, Outcome o) {
    System.out.printf(
        "start-time estimates, %s: %d workloads waited (%d unknown), mean wait"
            + " %.0f s, MAE %.1f s%n",
        what, o.waited(), o.unknown(), o.meanWaitSeconds(), o.maeSeconds());
  }

  @Test
  void withExactMaximumExecutionTimesAndStrictFifoTheEstimatesAreExact() {
    // StrictFIFO: no later arrival can overtake, and every end is known: the replay is the future.
    Outcome o = run(trace(7, 300, 40_000, 120_000), true, true);
    print("StrictFIFO, exact maxExecutionTime", o);
    assertThat(o.waited()).isGreaterThan(100);
    assertThat(o.unknown()).isZero();
    assertThat(o.maeSeconds()).isZero();
  }

  @Test
  void withLearnedRuntimesTheEstimatesBeatSayingNothing() {
    Outcome o = run(trace(11, 300, 40_000, 120_000), false, false);
    print("BestEffortFIFO, median of finished runtimes", o);
    assertThat(o.waited()).isGreaterThan(100);
    // The only workloads without an estimate are those that arrived before any had finished.
    assertThat(o.unknown()).isLessThan(30);
    // "It starts now" is wrong by the mean wait: the replay must do clearly better than that.
    assertThat(o.maeSeconds()).isLessThan(o.meanWaitSeconds() / 2);
  }

  @Test
  void backfillingLaterArrivalsAreTheErrorOfBestEffortFifo() {
    // Exact ends but BestEffortFIFO: later small arrivals backfill, which the replay cannot know.
    Outcome o = run(trace(7, 300, 40_000, 120_000), false, true);
    print("BestEffortFIFO, exact maxExecutionTime", o);
    assertThat(o.unknown()).isZero();
    assertThat(o.maeSeconds()).isLessThan(o.meanWaitSeconds() / 2);
  }
}
