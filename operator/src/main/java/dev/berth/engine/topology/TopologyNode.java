package dev.berth.engine.topology;

import dev.berth.engine.model.Taint;
import dev.berth.engine.quota.Quantity;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What placement needs of a Kubernetes Node: labels, allocatable (canonical units, see {@link
 * Quantity}), readiness, cordon, taints, and optional sub-domains below the node.
 */
public record TopologyNode(
    String name,
    Map<String, String> labels,
    Map<String, Long> allocatable,
    boolean ready,
    boolean unschedulable,
    List<Taint> taints,
    List<NodeSubDomain> subDomains) {

  public TopologyNode {
    Objects.requireNonNull(name, "name");
    labels = Map.copyOf(labels);
    allocatable = Map.copyOf(allocatable);
    taints = List.copyOf(taints);
    subDomains = List.copyOf(subDomains);
  }

  public static Builder named(String name) {
    return new Builder(name);
  }

  /** Fluent builder; a node is Ready and schedulable unless told otherwise. */
  public static final class Builder {
    private final String name;
    private final Map<String, String> labels = new LinkedHashMap<>();
    private final Map<String, Long> allocatable = new LinkedHashMap<>();
    private boolean ready = true;
    private boolean unschedulable;
    private final List<Taint> taints = new ArrayList<>();
    private final List<NodeSubDomain> subDomains = new ArrayList<>();

    private Builder(String name) {
      this.name = name;
      labels.put(Topology.HOSTNAME, name);
    }

    public Builder label(String key, String value) {
      labels.put(key, value);
      return this;
    }

    /** Allocatable in canonical units (cpu in millicores). */
    public Builder allocatable(String resource, long canonical) {
      allocatable.put(resource, canonical);
      return this;
    }

    /** Allocatable as a Kubernetes quantity ("64", "500m", "256Gi"). */
    public Builder allocatable(String resource, String quantity) {
      return allocatable(resource, Quantity.parse(resource, quantity));
    }

    public Builder ready(boolean value) {
      ready = value;
      return this;
    }

    public Builder unschedulable(boolean value) {
      unschedulable = value;
      return this;
    }

    public Builder taint(Taint taint) {
      taints.add(taint);
      return this;
    }

    /** Adds a sub-domain; once a node has sub-domains its allocatable is their sum. */
    public Builder subDomain(String subName, Map<String, Long> subAllocatable) {
      subDomains.add(new NodeSubDomain(subName, subAllocatable));
      return this;
    }

    public TopologyNode build() {
      Map<String, Long> total = new LinkedHashMap<>(allocatable);
      if (!subDomains.isEmpty()) {
        total.clear();
        for (NodeSubDomain s : subDomains) {
          s.allocatable().forEach((r, v) -> total.merge(r, v, Long::sum));
        }
      }
      return new TopologyNode(name, labels, total, ready, unschedulable, taints, subDomains);
    }
  }
}
