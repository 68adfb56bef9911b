package dev.berth.engine.capacity;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Capacity of one flavor against what quota promises (see docs/capacity.md). Amounts in canonical
 * units; {@code unusableNodes} maps each matching node that does not count as allocatable to why.
 */
public record FlavorCapacity(
    String flavor,
    int nodes,
    int allocatableNodes,
    Map<String, String> unusableNodes,
    Sharing sharing,
    List<ResourceCapacity> resources) {

  public FlavorCapacity {
    // Sorted by node name: messages built from it must not change from one refresh to the next.
    unusableNodes = Collections.unmodifiableMap(new TreeMap<>(unusableNodes));
    resources = List.copyOf(resources);
  }

  /** How the flavor's GPUs are shared between pods; null on a flavor of exclusive devices. */
  public record Sharing(String strategy, Integer replicas) {}

  /** One resource of the flavor. */
  public record ResourceCapacity(
      String resource,
      long physical,
      long allocatable,
      long platformReserved,
      long committed,
      long borrowingPeak,
      long reserved,
      long inUse,
      boolean shared) {

    /** committed ÷ allocatable; infinite when quota is committed on no capacity, 0 on neither. */
    public double overCommitRatio() {
      if (allocatable == 0) {
        return committed == 0 ? 0 : Double.POSITIVE_INFINITY;
      }
      return (double) committed / allocatable;
    }

    /** Nominal quota promises more than the usable nodes hold. */
    public boolean overCommitted() {
      return committed > allocatable;
    }

    /** Admitted workloads hold more than the usable nodes hold: some of them cannot all run. */
    public boolean shortOfReserved() {
      return reserved > allocatable;
    }
  }

  public List<ResourceCapacity> overCommitted() {
    return resources.stream().filter(ResourceCapacity::overCommitted).toList();
  }

  public List<ResourceCapacity> shortOfReserved() {
    return resources.stream().filter(ResourceCapacity::shortOfReserved).toList();
  }

  public ResourceCapacity resource(String name) {
    return resources.stream().filter(r -> r.resource().equals(name)).findFirst().orElse(null);
  }
}
