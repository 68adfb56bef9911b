package dev.berth.engine.topology;

import java.util.List;
import java.util.Objects;

/**
 * A Topology: node-label levels, outermost first (e.g. block, rack, {@code
 * kubernetes.io/hostname}), optionally followed by one level below the host (a NUMA or PCIe domain)
 * whose domains are the {@link NodeSubDomain}s of each node rather than a node label.
 */
public record Topology(String name, List<String> nodeLevels, String subNodeLevel) {
  public static final String HOSTNAME = "kubernetes.io/hostname";

  public Topology {
    Objects.requireNonNull(name, "name");
    nodeLevels = List.copyOf(nodeLevels);
    if (nodeLevels.isEmpty()) {
      throw new IllegalArgumentException("topology " + name + " has no levels");
    }
    if (nodeLevels.stream().distinct().count() != nodeLevels.size()
        || (subNodeLevel != null && nodeLevels.contains(subNodeLevel))) {
      throw new IllegalArgumentException("topology " + name + " repeats a level");
    }
  }

  /** A topology whose levels are all node labels. */
  public static Topology of(String name, String... nodeLevels) {
    return new Topology(name, List.of(nodeLevels), null);
  }

  /** The same topology with a level below the node (each node's sub-domains). */
  public Topology withSubNodeLevel(String level) {
    return new Topology(name, nodeLevels, Objects.requireNonNull(level, "level"));
  }

  /** Every level, outermost first, including the sub-node level if any. */
  public List<String> levels() {
    if (subNodeLevel == null) {
      return nodeLevels;
    }
    List<String> all = new java.util.ArrayList<>(nodeLevels);
    all.add(subNodeLevel);
    return List.copyOf(all);
  }

  /** Index of the level, outermost 0, or -1. */
  public int indexOf(String level) {
    return levels().indexOf(level);
  }

  /** The last path segment of a level key, for messages: "topology.berth.dev/rack" -> "rack". */
  static String shortName(String level) {
    int slash = level.lastIndexOf('/');
    return slash < 0 ? level : level.substring(slash + 1);
  }
}
