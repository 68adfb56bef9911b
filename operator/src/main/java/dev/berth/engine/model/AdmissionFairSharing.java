package dev.berth.engine.model;

import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * How admission fair sharing measures a LocalQueue's recent usage (Kueue's {@code
 * admissionFairSharing} configuration): the usage of its admitted workloads, sampled every {@code
 * samplingIntervalMillis} into a moving average that halves every {@code halfLifeMillis} (0: no
 * history, only what was just admitted counts), each resource counted with its weight (default 1)
 * per base unit (a cpu core, a byte, a GPU).
 */
public record AdmissionFairSharing(
    long halfLifeMillis, long samplingIntervalMillis, Map<String, Double> resourceWeights) {
  /** Kueue's example: a week's half-life, sampled every 5 minutes, every resource weighing 1. */
  public static final AdmissionFairSharing DEFAULT =
      new AdmissionFairSharing(168L * 3600 * 1000, 5L * 60 * 1000, Map.of());

  public AdmissionFairSharing {
    if (halfLifeMillis < 0) {
      throw new IllegalArgumentException("usageHalfLifeTime must be >= 0");
    }
    if (samplingIntervalMillis <= 0) {
      throw new IllegalArgumentException("usageSamplingInterval must be > 0");
    }
    Objects.requireNonNull(resourceWeights, "resourceWeights");
    resourceWeights.forEach(
        (resource, weight) -> {
          if (!(weight >= 0) || weight.isInfinite()) {
            throw new IllegalArgumentException(
                "resourceWeights." + resource + " must be a finite number >= 0");
          }
        });
    resourceWeights = java.util.Collections.unmodifiableMap(new TreeMap<>(resourceWeights));
  }

  /** The weight of a resource: configured, or 1. */
  public double weight(String resource) {
    return resourceWeights.getOrDefault(resource, 1.0);
  }
}
