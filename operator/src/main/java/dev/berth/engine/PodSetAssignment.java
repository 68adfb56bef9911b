package dev.berth.engine;

import dev.berth.engine.flavor.Assignment;
import dev.berth.engine.quota.Quantity;
import dev.berth.engine.topology.TopologyAssignment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
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

  /** The podSets of a flavor assignment, as an admission reports them. */
  static List<PodSetAssignment> of(Assignment a) {
    List<PodSetAssignment> podSets = new ArrayList<>(a.podSets().length);
    for (Assignment.PodSetFlavors ps : a.podSets()) {
      podSets.add(of(ps));
    }
    return podSets;
  }

  private static PodSetAssignment of(Assignment.PodSetFlavors ps) {
    if (ps.resources.length == 1) {
      // The common case (one resource): immutable single-entry maps, no hashing.
      String r = ps.resources[0];
      return new PodSetAssignment(
          ps.name,
          Map.of(r, ps.flavors[0]),
          Map.of(r, ps.usage[0]),
          ps.count,
          ps.borrowed[0] > 0 ? Map.of(r, ps.borrowed[0]) : Map.of());
    }
    Map<String, String> fl = new HashMap<>();
    Map<String, Long> use = new HashMap<>();
    Map<String, Long> borrowed = new HashMap<>();
    for (int i = 0; i < ps.resources.length; i++) {
      fl.put(ps.resources[i], ps.flavors[i]);
      use.put(ps.resources[i], ps.usage[i]);
      if (ps.borrowed[i] > 0) {
        borrowed.put(ps.resources[i], ps.borrowed[i]);
      }
    }
    return new PodSetAssignment(ps.name, fl, use, ps.count, borrowed);
  }
}
