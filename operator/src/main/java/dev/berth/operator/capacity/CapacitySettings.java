package dev.berth.operator.capacity;

import dev.berth.operator.config.Configuration;
import dev.berth.operator.config.ConfigurationLoader;
import java.util.Set;

/**
 * Which NoSchedule/NoExecute taint keys take a node out of allocatable capacity: the API server's
 * and the node lifecycle controller's failure taints, the cluster autoscaler's scale-down taint,
 * and Berth's own maintenance key, unless the configuration's {@code capacity.excludedTaintKeys}
 * names others.
 */
public record CapacitySettings(Set<String> excludedTaintKeys) {
  public CapacitySettings {
    excludedTaintKeys = Set.copyOf(excludedTaintKeys);
  }

  /** The configuration's default keys. */
  public static CapacitySettings defaults() {
    return of(ConfigurationLoader.defaults().capacity());
  }

  /** The configuration's {@code capacity.excludedTaintKeys}. */
  public static CapacitySettings of(Configuration.Capacity section) {
    return new CapacitySettings(Set.copyOf(section.excludedTaintKeys()));
  }
}
