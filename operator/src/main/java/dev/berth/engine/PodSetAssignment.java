package dev.berth.engine;

import dev.berth.engine.quota.Quantity;
import dev.berth.engine.topology.TopologyAssignment;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One podSet of an admission: the flavor of each resource, the usage (count x per-pod request, in
 * canonical units), the admitted count (smaller than requested under partial admission), how much
 * of the usage is borrowed from the cohort, and, for a topology-aware podSet, the domains its pods
 * were placed in (null otherwise).
 */
public record PodSetAssignment(
    String name,
    Map<String, String> flavors,
    Map<String, Long> resourceUsage,
    int count,
    Map<String, Long> borrowed,
    TopologyAssignment topologyAssignment) {
  public PodSetAssignment {
    flavors = Map.copyOf(flavors);
    resourceUsage = Map.copyOf(resourceUsage);
    borrowed = borrowed == null ? Map.of() : Map.copyOf(borrowed);
  }

  public PodSetAssignment(
      String name,
      Map<String, String> flavors,
      Map<String, Long> resourceUsage,
      int count,
      Map<String, Long> borrowed) {
    this(name, flavors, resourceUsage, count, borrowed, null);
  }

  /** The same assignment, placed in these topology domains. */
  public PodSetAssignment withTopology(TopologyAssignment assignment) {
    return new PodSetAssignment(name, flavors, resourceUsage, count, borrowed, assignment);
  }

  public boolean borrows() {
    return borrowed.values().stream().anyMatch(v -> v > 0);
  }

  /** resourceUsage as Kubernetes quantity strings, as status.admission wants them. */
  public Map<String, String> formattedUsage() {
    Map<String, String> out = new LinkedHashMap<>();
    resourceUsage.entrySet().stream()
        .sorted(Map.Entry.comparingByKey())
        .forEach(e -> out.put(e.getKey(), Quantity.format(e.getKey(), e.getValue())));
    return out;
  }
}
