package dev.berth.bench.load;

import java.util.List;

/**
 * The shape of Kueue's scheduler-performance loads (test/performance/scheduler/configs/baseline and
 * large-scale): cohorts of ClusterQueues with one cpu quota each, and per ClusterQueue (one
 * namespace, one LocalQueue) a few classes of single-pod Workloads, each class created one at a
 * time at its own interval, all classes and queues at once.
 *
 * @param cohorts how many cohorts
 * @param queuesPerCohort ClusterQueues in each cohort
 * @param nominalCpu each ClusterQueue's nominal cpu quota
 * @param borrowingLimitCpu how much cpu each ClusterQueue may borrow from its cohort
 * @param classes the Workload classes created in every ClusterQueue
 */
public record SchedulerLoad(
    String name,
    int cohorts,
    int queuesPerCohort,
    int nominalCpu,
    int borrowingLimitCpu,
    List<WorkloadClass> classes) {

  /**
   * One class of Workloads created in each ClusterQueue.
   *
   * @param perQueue how many of this class each ClusterQueue gets
   * @param intervalMs the pause before each creation, as Kueue's generator waits before each one
   */
  public record WorkloadClass(
      String name, int cpu, int runtimeMs, int priority, int perQueue, int intervalMs) {}

  /** Kueue's 15,000 Workloads in 5 cohorts × 6 ClusterQueues, scaled to about {@code total}. */
  public static SchedulerLoad baseline(int total) {
    double scale = total / 15_000.0;
    return new SchedulerLoad(
        "baseline",
        5,
        6,
        20,
        100,
        List.of(
            new WorkloadClass("small", 1, 200, 50, scaled(350, scale), 100),
            new WorkloadClass("medium", 5, 500, 100, scaled(100, scale), 500),
            new WorkloadClass("large", 20, 1_000, 200, scaled(50, scale), 1_200)));
  }

  /**
   * Kueue's "large-scale" load: 10 cohorts × 100 ClusterQueues (the same quotas as the baseline),
   * 50 Workloads per ClusterQueue (35 small, 11 medium, 4 large; shorter runtimes and intervals),
   * 50,000 in all; scaled to about {@code total} by the number of ClusterQueues per cohort, so that
   * each ClusterQueue keeps its 50 (10,000 gives 10 × 20).
   */
  public static SchedulerLoad largeScale(int total) {
    int queuesPerCohort = Math.max(1, (int) Math.round(total / 500.0));
    return new SchedulerLoad(
        "large-scale",
        10,
        queuesPerCohort,
        20,
        100,
        List.of(
            new WorkloadClass("small", 1, 150, 50, 35, 60),
            new WorkloadClass("medium", 5, 350, 100, 11, 300),
            new WorkloadClass("large", 20, 700, 200, 4, 700)));
  }

  /** A load by name: "baseline" or "large-scale". */
  public static SchedulerLoad named(String name, int total) {
    return switch (name) {
      case "baseline" -> baseline(total);
      case "large-scale" -> largeScale(total);
      default ->
          throw new IllegalArgumentException(
              "load: \"" + name + "\" is not one of baseline, large-scale");
    };
  }

  private static int scaled(int count, double scale) {
    return Math.max(1, (int) Math.round(count * scale));
  }

  public int clusterQueues() {
    return cohorts * queuesPerCohort;
  }

  public int workloads() {
    return clusterQueues() * classes.stream().mapToInt(WorkloadClass::perQueue).sum();
  }

  /**
   * The quota-bound ideal wall time in seconds: all cpu-seconds asked for, spread over all nominal
   * quota without a gap (Kueue's "≈ 66 s" for the baseline), or the creation span if longer.
   */
  public double idealSeconds() {
    double cpuSeconds =
        clusterQueues()
            * classes.stream()
                .mapToDouble(c -> (double) c.perQueue() * c.cpu() * c.runtimeMs() / 1000.0)
                .sum();
    return Math.max(cpuSeconds / (clusterQueues() * (double) nominalCpu), creationSeconds());
  }

  /** How long creating takes at the classes' intervals (the slowest class). */
  public double creationSeconds() {
    return classes.stream()
        .mapToDouble(c -> c.perQueue() * c.intervalMs() / 1000.0)
        .max()
        .orElse(0);
  }

  public String clusterQueueName(int cohort, int queue) {
    return "cq-" + cohort + "-" + queue;
  }

  public String cohortName(int cohort) {
    return "cohort-" + cohort;
  }
}
