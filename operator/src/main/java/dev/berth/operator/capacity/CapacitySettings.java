package dev.berth.operator.capacity;

import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Which NoSchedule/NoExecute taint keys take a node out of allocatable capacity: the API server's
 * and the node lifecycle controller's failure taints, the cluster autoscaler's scale-down taint,
 * and Berth's own maintenance key, unless {@code BERTH_CAPACITY_EXCLUDED_TAINT_KEYS} (a comma list,
 * set through the chart's {@code extraEnv}) names others.
 */
public record CapacitySettings(Set<String> excludedTaintKeys) {
  public static final String ENV = "BERTH_CAPACITY_EXCLUDED_TAINT_KEYS";

  public static final Set<String> DEFAULT_EXCLUDED_TAINT_KEYS =
      Set.of(
          "node.kubernetes.io/not-ready",
          "node.kubernetes.io/unreachable",
          "node.kubernetes.io/unschedulable",
          "node.kubernetes.io/network-unavailable",
          "node.kubernetes.io/out-of-service",
          "node.cloudprovider.kubernetes.io/shutdown",
          "ToBeDeletedByClusterAutoscaler",
          "berth.dev/maintenance");

  public CapacitySettings {
    excludedTaintKeys = Set.copyOf(excludedTaintKeys);
  }

  public static CapacitySettings defaults() {
    return new CapacitySettings(DEFAULT_EXCLUDED_TAINT_KEYS);
  }

  /** From the environment; an unset or blank variable means the defaults. */
  public static CapacitySettings from(Map<String, String> env) {
    String keys = env.get(ENV);
    if (keys == null || keys.isBlank()) {
      return defaults();
    }
    return new CapacitySettings(
        Arrays.stream(keys.split(","))
            .map(String::trim)
            .filter(k -> !k.isEmpty())
            .collect(Collectors.toSet()));
  }
}
