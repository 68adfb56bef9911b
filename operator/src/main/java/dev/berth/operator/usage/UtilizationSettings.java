package dev.berth.operator.usage;

import java.math.BigDecimal;
import java.net.URI;
import java.time.Duration;
import java.util.Map;

/**
 * The DCGM join: where Prometheus answers, which DCGM series measure GPU use, under which labels
 * dcgm-exporter's Kubernetes mapping names the pod, and how long after a run ends to ask (the last
 * scrapes must have arrived). From the environment (the chart's {@code utilization.*} values);
 * without {@code BERTH_PROMETHEUS_URL} there is no join and runs are recorded at once.
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
    return from(
        Map.of(
            "BERTH_PROMETHEUS_URL", url,
            "BERTH_UTILIZATION_METRIC", metric,
            "BERTH_UTILIZATION_DELAY_SECONDS", Long.toString(delay.toSeconds())));
  }

  /**
   * From the environment. A bad value fails the start with a message naming the variable.
   *
   * @throws IllegalArgumentException naming the variable and what it must be
   */
  public static UtilizationSettings from(Map<String, String> env) {
    String url = env.get("BERTH_PROMETHEUS_URL");
    if (url == null || url.isBlank()) {
      return off();
    }
    URI uri;
    try {
      uri = URI.create(url.trim().replaceAll("/+$", ""));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("BERTH_PROMETHEUS_URL: not a URL: \"" + url + "\"");
    }
    if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())
        || uri.getHost() == null) {
      throw new IllegalArgumentException(
          "BERTH_PROMETHEUS_URL: must be an http:// or https:// URL, not \"" + url + "\"");
    }
    String metric = env.getOrDefault("BERTH_UTILIZATION_METRIC", GPU_UTIL).trim();
    BigDecimal scale = SCALES.get(metric);
    if (scale == null) {
      throw new IllegalArgumentException(
          "BERTH_UTILIZATION_METRIC: must be one of "
              + String.join(", ", new java.util.TreeSet<>(SCALES.keySet()))
              + ", not \""
              + metric
              + "\"");
    }
    return new UtilizationSettings(
        uri,
        metric,
        scale,
        label(env, "BERTH_UTILIZATION_NAMESPACE_LABEL", "namespace"),
        label(env, "BERTH_UTILIZATION_POD_LABEL", "pod"),
        seconds(env, "BERTH_UTILIZATION_DELAY_SECONDS", 60),
        seconds(env, "BERTH_UTILIZATION_GIVE_UP_SECONDS", 600),
        Duration.ofSeconds(10));
  }

  private static String label(Map<String, String> env, String name, String otherwise) {
    String value = env.getOrDefault(name, otherwise).trim();
    if (!value.matches("[a-zA-Z_][a-zA-Z0-9_]*")) {
      throw new IllegalArgumentException(name + ": not a Prometheus label name: \"" + value + "\"");
    }
    return value;
  }

  static Duration seconds(Map<String, String> env, String name, long otherwise) {
    String text = env.get(name);
    if (text == null || text.isBlank()) {
      return Duration.ofSeconds(otherwise);
    }
    try {
      long value = Long.parseLong(text.trim());
      if (value < 0) {
        throw new NumberFormatException();
      }
      return Duration.ofSeconds(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          name + ": must be a whole number of seconds, 0 or more, not \"" + text + "\"");
    }
  }
}
