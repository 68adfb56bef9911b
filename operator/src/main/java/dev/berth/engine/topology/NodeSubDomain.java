package dev.berth.engine.topology;

import java.util.Map;
import java.util.Objects;

/**
 * A part of a node with its own capacity (a NUMA or PCIe domain): the domains of the topology's
 * sub-node level. A node's sub-domains partition its allocatable resources.
 */
public record NodeSubDomain(String name, Map<String, Long> allocatable) {
  public NodeSubDomain {
    Objects.requireNonNull(name, "name");
    allocatable = Map.copyOf(allocatable);
  }
}
