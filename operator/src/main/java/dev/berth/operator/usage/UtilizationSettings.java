package dev.berth.operator.usage;

import dev.berth.operator.config.Configuration;
import java.math.BigDecimal;
import java.net.URI;
import java.time.Duration;
import java.util.Map;

/**
 * The DCGM join: where Prometheus answers, which DCGM series measure GPU use, under which labels
 * dcgm-exporter's Kubernetes mapping names the pod, and how long after a run ends to ask (the last
 * scrapes must have arrived). From the configuration's {@code utilization} section (the chart's
 * {@code utilization.*} values); without {@code prometheusUrl} there is no join and runs are
 * recorded at once.
 */
public record UtilizationSettings(
    URI prometheus,
    String metric,
    BigDecimal scale,
    String namespaceLabel,
    String podLabel,
    Duration delay,
    Duration giveUpAfter,
    Duration queryTimeout) {

  public static final String GPU_UTIL = "DCGM_FI_DEV_GPU_UTIL";
  public static final String SM_ACTIVE = "DCGM_FI_PROF_SM_ACTIVE";
  public static final String GR_ENGINE_ACTIVE = "DCGM_FI_PROF_GR_ENGINE_ACTIVE";

  /** What a sample of each supported metric means in busy GPUs: percent or ratio. */
  private static final Map<String, BigDecimal> SCALES =
      Map.of(
          GPU_UTIL, new BigDecimal("0.01"),
          SM_ACTIVE, BigDecimal.ONE,
          GR_ENGINE_ACTIVE, BigDecimal.ONE);

  public static UtilizationSettings off() {
    return new UtilizationSettings(
        null,
        GPU_UTIL,
        SCALES.get(GPU_UTIL),
        "namespace",
        "pod",
        Duration.ZERO,
        Duration.ZERO,
        Duration.ofSeconds(10));
  }

  public boolean enabled() {
    return prometheus != null;
  }

  /** This configuration with the join on, against a Prometheus at {@code url}. */
  public static UtilizationSettings of(String url, String metric, Duration delay) {
    return of(
        new Configuration.Utilization(
            URI.create(url.trim().replaceAll("/+$", "")),
            metric,
            "namespace",
            "pod",
            delay,
            Duration.ofSeconds(600)));
  }

  /** The configuration's {@code utilization} section (checked by its loader). */
  public static UtilizationSettings of(Configuration.Utilization section) {
    if (section.prometheusUrl() == null) {
      return off();
    }
    BigDecimal scale = SCALES.get(section.metric());
    if (scale == null) {
      throw new IllegalArgumentException("no such DCGM metric: " + section.metric());
    }
    return new UtilizationSettings(
        section.prometheusUrl(),
        section.metric(),
        scale,
        section.namespaceLabel(),
        section.podLabel(),
        section.delay(),
        section.giveUp(),
        Duration.ofSeconds(10));
  }
}
