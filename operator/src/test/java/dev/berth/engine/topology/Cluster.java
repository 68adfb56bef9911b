package dev.berth.engine.topology;

import dev.berth.engine.model.Toleration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/** Fluent test cluster: a grid of GPU nodes named block-rack-node, bound pods, flavor filters. */
final class Cluster {
  static final String GPU = "nvidia.com/gpu";
  static final String BLOCK = "topology.berth.dev/block";
  static final String RACK = "topology.berth.dev/rack";
  static final String HOST = Topology.HOSTNAME;
  static final String NUMA = "topology.berth.dev/numa";
  static final Topology BLOCK_RACK_HOST = Topology.of("default", BLOCK, RACK, HOST);

  private Topology topology = BLOCK_RACK_HOST;
  private final Map<String, TopologyNode.Builder> nodes = new LinkedHashMap<>();
  private final List<Object[]> bound = new ArrayList<>();
  private Map<String, String> nodeLabels = Map.of();
  private List<Toleration> tolerations = List.of();

  /** {@code blocks × racks × nodes} nodes of {@code gpus} GPUs and 64 cpu, named b1-r1-n1. */
  static Cluster grid(int blocks, int racks, int nodesPerRack, long gpus) {
    Cluster c = new Cluster();
    for (int b = 1; b <= blocks; b++) {
      for (int r = 1; r <= racks; r++) {
        for (int n = 1; n <= nodesPerRack; n++) {
          c.node(gpuNode("b" + b + "-r" + r + "-n" + n, "b" + b, "r" + r, gpus));
        }
      }
    }
    return c;
  }

  static TopologyNode.Builder gpuNode(String name, String block, String rack, long gpus) {
    return TopologyNode.named(name)
        .label(BLOCK, block)
        .label(RACK, rack)
        .allocatable(GPU, gpus)
        .allocatable("cpu", "64")
        .allocatable("memory", "512Gi");
  }

  static Cluster empty() {
    return new Cluster();
  }

  Cluster topology(Topology value) {
    topology = value;
    return this;
  }

  Cluster node(TopologyNode.Builder node) {
    nodes.put(node.build().name(), node);
    return this;
  }

  Cluster with(String node, UnaryOperator<TopologyNode.Builder> change) {
    change.apply(nodes.get(node));
    return this;
  }

  /** A pod already bound to the node, requesting {@code gpus} GPUs. */
  Cluster used(String node, long gpus) {
    return used(node, null, Map.of(GPU, gpus));
  }

  Cluster used(String node, String subDomain, Map<String, Long> requests) {
    bound.add(new Object[] {node, subDomain, requests});
    return this;
  }

  Cluster nodeLabels(Map<String, String> value) {
    nodeLabels = value;
    return this;
  }

  Cluster tolerations(Toleration... value) {
    tolerations = List.of(value);
    return this;
  }

  @SuppressWarnings("unchecked")
  NodeInventory inventory() {
    NodeInventory.Builder b =
        NodeInventory.builder(topology).nodeLabels(nodeLabels).tolerations(tolerations);
    nodes.values().forEach(n -> b.node(n.build()));
    for (Object[] p : bound) {
      b.boundPod((String) p[0], (String) p[1], (Map<String, Long>) p[2]);
    }
    return b.build();
  }

  /** "b1/r1/b1-r1-n1=2 b1/r1/b1-r1-n2=1", or "FAIL: message". */
  static String render(Placement p) {
    if (!p.isPlaced()) {
      return "FAIL: " + p.message();
    }
    StringBuilder sb = new StringBuilder();
    for (TopologyAssignment.Domain d : p.assignment().domains()) {
      sb.append(sb.length() == 0 ? "" : " ")
          .append(String.join("/", d.values()))
          .append('=')
          .append(d.count());
    }
    return sb.toString();
  }
}
