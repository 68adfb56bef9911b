package dev.berth.engine.topology;

import java.util.List;

/**
 * Where a podSet's pods go: the shape of Workload status {@code
 * podSetAssignments[].topologyAssignment}. Each domain names one leaf by its value at every level.
 */
public record TopologyAssignment(List<String> levels, List<Domain> domains) {
  public TopologyAssignment {
    levels = List.copyOf(levels);
    domains = List.copyOf(domains);
  }

  /** A leaf domain and how many pods go there. */
  public record Domain(List<String> values, int count) {
    public Domain {
      values = List.copyOf(values);
    }
  }

  public int podCount() {
    return domains.stream().mapToInt(Domain::count).sum();
  }
}
