package dev.berth.operator.capacity;

import dev.berth.operator.config.Configuration;
import java.util.Set;

/**
 * Which NoSchedule/NoExecute taint keys take a node out of allocatable capacity: the API server's
 * and the node lifecycle controller's failure taints, the cluster autoscaler's scale-down taint,
 * and Berth's own maintenance key, unless the configuration's {@code capacity.excludedTaintKeys}
 * names others.
 */
public record CapacitySettings(Set<String> excludedTaintKeys) {
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

  /** The configuration's {@code capacity.excludedTaintKeys}. */
  public static CapacitySettings of(Configuration.Capacity section) {
    return new CapacitySettings(Set.copyOf(section.excludedTaintKeys()));
  }
}
