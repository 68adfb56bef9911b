package dev.berth.engine.checks;

import java.util.Objects;
import java.util.Set;

/**
 * One entry of a ClusterQueue's admissionChecksStrategy: the check applies to workloads assigned
 * any of {@code onFlavors}, or to every workload when the set is empty.
 */
public record CheckRule(String name, Set<String> onFlavors) {
  public CheckRule {
    Objects.requireNonNull(name, "name");
    onFlavors = onFlavors == null ? Set.of() : Set.copyOf(onFlavors);
  }

  public boolean appliesTo(java.util.Collection<String> flavors) {
    return onFlavors.isEmpty() || flavors.stream().anyMatch(onFlavors::contains);
  }
}
