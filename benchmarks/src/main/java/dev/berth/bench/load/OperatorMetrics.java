package dev.berth.bench.load;

/** The operator's /metrics, as the benchmarks read it. */
interface OperatorMetrics {
  /**
   * The sum of a gauge or counter (or a timer's {@code _count}) over its series, or -1 if it cannot
   * be read.
   */
  double metric(String name);
}
