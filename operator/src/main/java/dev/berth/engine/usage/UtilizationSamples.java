package dev.berth.engine.usage;

import java.math.BigDecimal;
import java.util.List;

/**
 * Device-seconds used, from a utilization series sampled every {@code step} milliseconds over a run
 * (Prometheus query_range: each value holds until the next step): Σ value × scale × the part of its
 * step inside the run. {@code scale} turns the metric into busy devices (0.01 for a percentage such
 * as DCGM_FI_DEV_GPU_UTIL, 1 for a ratio such as DCGM_FI_PROF_SM_ACTIVE).
 */
public final class UtilizationSamples {
  /** One sample: at epoch ms, the summed utilization of every GPU series of a pod. */
  public record Sample(long at, double value) {}

  private UtilizationSamples() {}

  public static BigDecimal deviceSeconds(
      List<Sample> samples, long runStart, long runEnd, long step, BigDecimal scale) {
    BigDecimal total = BigDecimal.ZERO;
    for (Sample s : samples) {
      long from = Math.max(s.at(), runStart);
      long to = Math.min(s.at() + step, runEnd);
      if (to <= from || Double.isNaN(s.value()) || s.value() < 0) {
        continue;
      }
      total =
          total.add(
              BigDecimal.valueOf(s.value())
                  .multiply(scale)
                  .multiply(UsageTotals.seconds(to - from)));
    }
    return total;
  }

  /** A query_range step for a run: 1 s, or coarser so that a long run stays under 10,000. */
  public static long stepFor(long runStart, long runEnd) {
    long millis = Math.max(0, runEnd - runStart);
    return Math.max(1000, ((millis / 10_000) / 1000 + 1) * 1000);
  }
}
