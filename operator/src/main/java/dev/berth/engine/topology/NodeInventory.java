package dev.berth.engine.topology;

import dev.berth.engine.model.NodeLabelMatcher;
import dev.berth.engine.model.Taint;
import dev.berth.engine.model.Toleration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Free capacity of one flavor's nodes at every level of a Topology: allocatable of the eligible
 * nodes (Ready, schedulable, carrying the flavor's node labels and every level label, taints
 * tolerated) minus pods already bound to them minus placements of admitted topology-aware
 * workloads. Changes after build walk one leaf's ancestors only; nothing is rescanned.
 */
public final class NodeInventory {
  private final Topology topology;
  private final List<String> levels;
  private final Map<String, Integer> resourceIndex;
  private final String[] resources;
  private final TopologyDomain root;

  /** Domains per level, outermost level first, each in a stable order. */
  private final List<List<TopologyDomain>> byLevel;

  private final Map<String, TopologyDomain> leafByKey;
  private final Map<String, List<TopologyDomain>> leavesByNode;
  private final int domainCount;

  private NodeInventory(Builder b) {
    topology = b.topology;
    levels = topology.levels();
    TreeSet<String> names = new TreeSet<>();
    List<TopologyNode> eligible = new ArrayList<>();
    for (TopologyNode n : b.nodes) {
      if (b.eligible(n)) {
        eligible.add(n);
        names.addAll(n.allocatable().keySet());
      }
    }
    resources = names.toArray(String[]::new);
    resourceIndex = new HashMap<>();
    for (int i = 0; i < resources.length; i++) {
      resourceIndex.put(resources[i], i);
    }
    int nextId = 0;
    root = new TopologyDomain(nextId++, -1, new String[0], null, resources.length);
    byLevel = new ArrayList<>();
    for (int i = 0; i < levels.size(); i++) {
      byLevel.add(new ArrayList<>());
    }
    Map<String, TopologyDomain> byKey = new HashMap<>();
    leafByKey = new HashMap<>();
    leavesByNode = new HashMap<>();
    List<String> nodeLevels = topology.nodeLevels();
    for (TopologyNode n : eligible) {
      TopologyDomain parent = root;
      String[] path = new String[0];
      for (int l = 0; l < nodeLevels.size(); l++) {
        path = append(path, n.labels().get(nodeLevels.get(l)));
        String key = String.join("\u0000", path);
        TopologyDomain d = byKey.get(key);
        if (d == null) {
          d = new TopologyDomain(nextId++, l, path, parent, resources.length);
          byKey.put(key, d);
          parent.children.add(d);
          byLevel.get(l).add(d);
        } else if (l == nodeLevels.size() - 1) {
          throw new IllegalArgumentException(
              "nodes share the lowest level value " + key.replace('\u0000', '/'));
        }
        parent = d;
      }
      List<TopologyDomain> leaves = new ArrayList<>();
      if (topology.subNodeLevel() == null) {
        leaves.add(parent);
        setAllocatable(parent, n.allocatable());
      } else {
        List<NodeSubDomain> subs =
            n.subDomains().isEmpty()
                ? List.of(new NodeSubDomain("0", n.allocatable()))
                : n.subDomains();
        for (NodeSubDomain s : subs) {
          TopologyDomain d =
              new TopologyDomain(
                  nextId++, nodeLevels.size(), append(path, s.name()), parent, resources.length);
          parent.children.add(d);
          byLevel.get(nodeLevels.size()).add(d);
          setAllocatable(d, s.allocatable());
          leaves.add(d);
        }
      }
      for (TopologyDomain leaf : leaves) {
        leafByKey.put(leaf.key(), leaf);
      }
      leavesByNode.put(n.name(), leaves);
    }
    domainCount = nextId;
    for (BoundPod p : b.boundPods) {
      addBoundPod(p.node, p.subDomain, p.requests);
    }
  }

  private static String[] append(String[] path, String value) {
    String[] next = java.util.Arrays.copyOf(path, path.length + 1);
    next[path.length] = value;
    return next;
  }

  private void setAllocatable(TopologyDomain leaf, Map<String, Long> allocatable) {
    leaf.allocatable = new long[resources.length];
    allocatable.forEach(
        (r, v) -> {
          int i = resourceIndex.get(r);
          leaf.allocatable[i] = v;
          leaf.addFree(i, v);
        });
  }

  public static Builder builder(Topology topology) {
    return new Builder(topology);
  }

  public Topology topology() {
    return topology;
  }

  /**
   * A pod bound to a node (not placed by Berth) takes its requests; on a node with sub-domains it
   * is charged to the named sub-domain, or (when {@code subDomain} is null) to the sub-domains in
   * order, each up to its free capacity, the last one taking any excess. Pods on nodes that are not
   * eligible are ignored.
   */
  public void addBoundPod(String node, String subDomain, Map<String, Long> requests) {
    charge(node, subDomain, requests, -1);
  }

  /** Gives back what {@link #addBoundPod} took, in the same order. */
  public void removeBoundPod(String node, String subDomain, Map<String, Long> requests) {
    charge(node, subDomain, requests, +1);
  }

  private void charge(String node, String subDomain, Map<String, Long> requests, int sign) {
    List<TopologyDomain> leaves = leavesByNode.get(node);
    if (leaves == null) {
      return;
    }
    if (subDomain != null) {
      leaves =
          leaves.stream().filter(l -> l.values[l.values.length - 1].equals(subDomain)).toList();
      if (leaves.isEmpty()) {
        throw new IllegalArgumentException("node " + node + " has no sub-domain " + subDomain);
      }
    }
    for (Map.Entry<String, Long> e : requests.entrySet()) {
      Integer r = resourceIndex.get(e.getKey());
      if (r == null || e.getValue() == 0) {
        continue;
      }
      long remaining = e.getValue();
      for (int i = 0; i < leaves.size() && remaining > 0; i++) {
        TopologyDomain leaf = leaves.get(i);
        boolean last = i == leaves.size() - 1;
        long room = sign < 0 ? Math.max(0, leaf.free[r]) : leaf.allocatable[r] - leaf.free[r];
        long amount = last ? remaining : Math.min(remaining, room);
        leaf.addFree(r, sign * amount);
        remaining -= amount;
      }
    }
  }

  /** An admitted topology-aware podSet takes {@code count × perPod} in each assigned leaf. */
  public void addPlacement(TopologyAssignment assignment, Map<String, Long> perPod) {
    applyPlacement(assignment, perPod, -1);
  }

  /** The workload finished or was evicted: its placement's capacity is free again. */
  public void removePlacement(TopologyAssignment assignment, Map<String, Long> perPod) {
    applyPlacement(assignment, perPod, +1);
  }

  private void applyPlacement(TopologyAssignment assignment, Map<String, Long> perPod, int sign) {
    if (!assignment.levels().equals(levels)) {
      throw new IllegalArgumentException(
          "assignment levels "
              + assignment.levels()
              + " are not the levels of topology "
              + topology.name());
    }
    for (TopologyAssignment.Domain d : assignment.domains()) {
      TopologyDomain leaf = leafByKey.get(String.join("\u0000", d.values()));
      if (leaf == null) {
        continue; // the node left the inventory; nothing to charge
      }
      for (Map.Entry<String, Long> e : perPod.entrySet()) {
        Integer r = resourceIndex.get(e.getKey());
        if (r != null) {
          leaf.addFree(r, sign * e.getValue() * d.count());
        }
      }
    }
  }

  /** Free capacity of the domain with these values (a prefix of the levels), canonical units. */
  public Map<String, Long> freeOf(List<String> values) {
    for (TopologyDomain d : values.isEmpty() ? List.of(root) : byLevel.get(values.size() - 1)) {
      if (d.valueList().equals(values)) {
        return freeMap(d);
      }
    }
    throw new IllegalArgumentException("no domain " + values);
  }

  Map<String, Long> freeMap(TopologyDomain d) {
    Map<String, Long> m = new LinkedHashMap<>();
    for (int i = 0; i < resources.length; i++) {
      m.put(resources[i], d.free[i]);
    }
    return m;
  }

  public List<String> levels() {
    return levels;
  }

  TopologyDomain root() {
    return root;
  }

  List<TopologyDomain> domainsAt(int level) {
    return Collections.unmodifiableList(byLevel.get(level));
  }

  int domainCount() {
    return domainCount;
  }

  /**
   * The per-pod request as a vector over the inventory's resources, or null if it asks for a
   * resource no eligible node has (then no pod fits anywhere).
   */
  long[] vector(Map<String, Long> perPod) {
    long[] v = new long[resources.length];
    for (Map.Entry<String, Long> e : perPod.entrySet()) {
      if (e.getValue() <= 0) {
        continue;
      }
      Integer r = resourceIndex.get(e.getKey());
      if (r == null) {
        return null;
      }
      v[r] = e.getValue();
    }
    return v;
  }

  /** Pods of the given shape that fit in one leaf. */
  static long podsFitting(TopologyDomain leaf, long[] request) {
    long fit = Integer.MAX_VALUE;
    for (int r = 0; r < request.length; r++) {
      if (request[r] > 0) {
        fit = Math.min(fit, Math.max(0, leaf.free[r]) / request[r]);
      }
    }
    return fit;
  }

  /**
   * Pods of the shape that fit per domain (indexed by domain id), bottom-up: a leaf counts whole
   * pods in its free capacity, a domain the sum of its children.
   */
  long[] podCounts(long[] request) {
    long[] pods = new long[domainCount];
    if (request == null) {
      return pods;
    }
    for (int l = levels.size() - 1; l >= 0; l--) {
      for (TopologyDomain d : byLevel.get(l)) {
        if (d.isLeaf()) {
          pods[d.id] = podsFitting(d, request);
        }
        if (d.parent != null) {
          pods[d.parent.id] += pods[d.id];
        }
      }
    }
    return pods;
  }

  /** Fluent builder of an inventory for one flavor. */
  public static final class Builder {
    private final Topology topology;
    private Map<String, String> nodeLabels = Map.of();
    private List<Toleration> tolerations = List.of();
    private final List<TopologyNode> nodes = new ArrayList<>();
    private final List<BoundPod> boundPods = new ArrayList<>();

    private Builder(Topology topology) {
      this.topology = topology;
    }

    /** The flavor's nodeLabels: only nodes carrying all of them count. */
    public Builder nodeLabels(Map<String, String> labels) {
      nodeLabels = Map.copyOf(labels);
      return this;
    }

    /** Tolerations of the flavor and podSet: nodes with an untolerated taint do not count. */
    public Builder tolerations(List<Toleration> value) {
      tolerations = List.copyOf(value);
      return this;
    }

    public Builder node(TopologyNode node) {
      nodes.add(node);
      return this;
    }

    public Builder nodes(List<TopologyNode> value) {
      nodes.addAll(value);
      return this;
    }

    public Builder boundPod(String node, Map<String, Long> requests) {
      return boundPod(node, null, requests);
    }

    public Builder boundPod(String node, String subDomain, Map<String, Long> requests) {
      boundPods.add(new BoundPod(node, subDomain, Map.copyOf(requests)));
      return this;
    }

    public NodeInventory build() {
      return new NodeInventory(this);
    }

    private boolean eligible(TopologyNode n) {
      if (!n.ready() || n.unschedulable()) {
        return false;
      }
      if (!NodeLabelMatcher.carriesAll(n.labels(), nodeLabels)) {
        return false;
      }
      for (String level : topology.nodeLevels()) {
        if (!n.labels().containsKey(level)) {
          return false;
        }
      }
      for (Taint t : n.taints()) {
        if (t.effect().repels() && tolerations.stream().noneMatch(tol -> tol.tolerates(t))) {
          return false;
        }
      }
      return true;
    }
  }

  private record BoundPod(String node, String subDomain, Map<String, Long> requests) {}
}
