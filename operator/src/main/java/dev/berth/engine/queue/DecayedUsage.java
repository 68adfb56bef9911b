package dev.berth.engine.queue;

import dev.berth.engine.model.AdmissionFairSharing;
import dev.berth.engine.quota.Quantity;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Map;
import java.util.TreeMap;

/**
 * The arithmetic of admission fair sharing, pure: a LocalQueue's recent usage is an exponential
 * moving average of what its admitted workloads request, in base units (cpu in cores), kept to 9
 * decimal places and rounded down (the scale Kueue keeps its consumed resources at), so that a
 * GPU's small share of a sampling interval is not rounded away. A sample weighs {@code α = 1 −
 * 0.5^(elapsed ÷ half-life)}: after one half-life, old usage counts half.
 */
public final class DecayedUsage {
  static final int SCALE = 9;

  private DecayedUsage() {}

  /** The weight of a sample taken {@code elapsedMillis} after the last; 0 without a half-life. */
  public static BigDecimal alpha(long elapsedMillis, long halfLifeMillis) {
    if (halfLifeMillis == 0) {
      return BigDecimal.ZERO;
    }
    double kept = StrictMath.pow(0.5, (double) Math.max(0, elapsedMillis) / halfLifeMillis);
    // The double's shortest decimal form, so that 0.5 is exactly 0.5.
    return BigDecimal.ONE.subtract(BigDecimal.valueOf(kept));
  }

  /**
   * The usage after a sample: {@code old × (1 − α) + current × α}, per resource; with no half-life
   * (0), nothing is remembered. Resources whose usage is 0 are left out.
   */
  public static Map<String, BigDecimal> decay(
      Map<String, BigDecimal> old,
      Map<String, BigDecimal> current,
      long elapsedMillis,
      long halfLifeMillis) {
    Map<String, BigDecimal> out = new TreeMap<>();
    if (halfLifeMillis == 0) {
      return out;
    }
    BigDecimal alpha = alpha(elapsedMillis, halfLifeMillis);
    BigDecimal keep = BigDecimal.ONE.subtract(alpha);
    old.forEach((r, v) -> out.merge(r, times(v, keep), BigDecimal::add));
    current.forEach((r, v) -> out.merge(r, times(v, alpha), BigDecimal::add));
    out.values().removeIf(v -> v.signum() == 0);
    return out;
  }

  /**
   * What an admission adds at once to its LocalQueue's usage until the next sample counts it
   * (Kueue's entry penalty): its requests × the α of one sampling interval. Without it, a
   * LocalQueue with little history would have every workload that fits admitted before the next
   * sample.
   */
  public static Map<String, BigDecimal> entryPenalty(
      Map<String, BigDecimal> requests, AdmissionFairSharing settings) {
    BigDecimal alpha = alpha(settings.samplingIntervalMillis(), settings.halfLifeMillis());
    Map<String, BigDecimal> out = new TreeMap<>();
    requests.forEach((r, v) -> out.put(r, times(v, alpha)));
    out.values().removeIf(v -> v.signum() == 0);
    return out;
  }

  /** Adds b to a, resource by resource. */
  public static Map<String, BigDecimal> plus(Map<String, BigDecimal> a, Map<String, BigDecimal> b) {
    Map<String, BigDecimal> out = new TreeMap<>(a);
    b.forEach((r, v) -> out.merge(r, v, BigDecimal::add));
    return out;
  }

  /**
   * The order key of a LocalQueue: the sum over resources of weight × usage, divided by its own
   * weight (thousandths); a weight of 0 ranks after every weighted LocalQueue.
   */
  public static double score(
      Map<String, BigDecimal> usage, AdmissionFairSharing settings, long weightThousandths) {
    if (weightThousandths == 0) {
      return Double.POSITIVE_INFINITY;
    }
    double sum = 0;
    // Sorted keys: the same sum, bit for bit, whatever the map's order.
    for (Map.Entry<String, BigDecimal> e : new TreeMap<>(usage).entrySet()) {
      sum += settings.weight(e.getKey()) * e.getValue().doubleValue();
    }
    return sum / (weightThousandths / 1000.0);
  }

  /** A quantity in the engine's canonical units (cpu in millicores) as base units. */
  public static BigDecimal baseUnits(String resource, long canonical) {
    BigDecimal v = BigDecimal.valueOf(canonical);
    return Quantity.isMilli(resource) ? v.movePointLeft(3) : v;
  }

  private static BigDecimal times(BigDecimal v, BigDecimal factor) {
    return v.multiply(factor).setScale(SCALE, RoundingMode.DOWN).stripTrailingZeros();
  }
}
