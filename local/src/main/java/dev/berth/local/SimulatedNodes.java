package dev.berth.local;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The nodes of local mode, as KWOK runs them ({@link KwokNodes}): the H100 nodes of the samples'
 * Topology dc1, 2 blocks × 2 racks × 4 nodes of 8 GPUs, labelled and tainted as samples/02 expects,
 * and the other pools the samples' flavors name (02, 03), so that every sample Job has nodes to run
 * on: 8 on-demand A100 nodes, 2 spot A100 nodes, 2 A100 nodes split into MIG 1g slices and 2
 * time-sliced L4 nodes; 2 nodes whose GPUs are published by Dynamic Resource Allocation ({@link
 * #dra()}); and an untainted pool of 4 CPU nodes for work that asks no GPU.
 */
public final class SimulatedNodes {
  public static final int BLOCKS = 2;
  public static final int RACKS_PER_BLOCK = 2;
  public static final int NODES_PER_RACK = 4;
  public static final String GPU = "nvidia.com/gpu";
  public static final String PRODUCT = "nvidia.com/gpu.product";
  public static final String H100 = "NVIDIA-H100-80GB-HBM3";
  public static final String A100 = "NVIDIA-A100-SXM4-80GB";
  public static final int CPU_NODES = 4;
  public static final String POOL = "node.berth.dev/pool";
  public static final int DRA_DEVICES = 4;
  private static final Taint GPU_TAINT = taint(GPU, "present");

  private SimulatedNodes() {}

  /** All of them; the H100 nodes first. */
  public static List<Node> nodes() {
    List<Node> nodes = new ArrayList<>(h100());
    for (int n = 1; n <= 8; n++) {
      nodes.add(
          node(
              "a100-n" + n,
              Map.of(PRODUCT, A100, "node.berth.dev/capacity-type", "on-demand"),
              List.of(GPU_TAINT),
              Map.of(GPU, "8")));
    }
    for (int n = 1; n <= 2; n++) {
      nodes.add(
          node(
              "spot-a100-n" + n,
              Map.of(PRODUCT, A100, "node.berth.dev/capacity-type", "spot"),
              List.of(GPU_TAINT, taint("node.berth.dev/spot", "true")),
              Map.of(GPU, "8")));
      // 8 A100s of 7 1g.10gb slices each.
      nodes.add(
          node(
              "a100-mig-n" + n,
              Map.of(PRODUCT, A100, "nvidia.com/mig.config", "all-1g.10gb"),
              List.of(GPU_TAINT, taint("node.berth.dev/shared-gpu", "mig")),
              Map.of("nvidia.com/mig-1g.10gb", "56")));
      nodes.add(
          node(
              "l4-shared-n" + n,
              Map.of(PRODUCT, "NVIDIA-L4", "nvidia.com/gpu.sharing-strategy", "time-slicing"),
              List.of(GPU_TAINT, taint("node.berth.dev/shared-gpu", "time-slicing")),
              Map.of("nvidia.com/gpu.shared", "8")));
    }
    nodes.addAll(dra());
    nodes.addAll(cpu());
    return nodes;
  }

  /**
   * The pool (label {@value #POOL}: dra) whose GPUs are DRA devices, not node resources: local
   * mode's {@link DraDriverStandIn} publishes {@value #DRA_DEVICES} per node in ResourceSlices,
   * which samples/dra's flavor selects. Tainted as the other GPU nodes, so work without a flavor
   * stays off.
   */
  public static List<Node> dra() {
    List<Node> nodes = new ArrayList<>();
    for (int n = 1; n <= 2; n++) {
      nodes.add(node("dra-n" + n, Map.of(POOL, "dra"), List.of(GPU_TAINT), Map.of()));
    }
    return nodes;
  }

  /**
   * The untainted CPU pool: work that asks no GPU (Kueue's getting-started Jobs, a flavor without
   * nodeLabels) runs here. Without it every node carries a GPU taint, and such pods would stay
   * Pending while their Workloads hold quota.
   */
  public static List<Node> cpu() {
    List<Node> nodes = new ArrayList<>();
    for (int n = 1; n <= CPU_NODES; n++) {
      nodes.add(node("cpu-n" + n, Map.of(POOL, "cpu"), List.of(), Map.of()));
    }
    return nodes;
  }

  /** The 16 H100 nodes of Topology dc1. */
  public static List<Node> h100() {
    List<Node> nodes = new ArrayList<>();
    for (int b = 1; b <= BLOCKS; b++) {
      for (int r = 1; r <= RACKS_PER_BLOCK; r++) {
        for (int n = 1; n <= NODES_PER_RACK; n++) {
          String block = "b" + b;
          String rack = block + "-r" + r;
          nodes.add(
              node(
                  "h100-" + rack + "-n" + n,
                  Map.of(
                      PRODUCT,
                      H100,
                      "topology.berth.dev/block",
                      block,
                      "topology.berth.dev/rack",
                      rack),
                  List.of(GPU_TAINT),
                  Map.of(GPU, "8")));
        }
      }
    }
    return nodes;
  }

  /**
   * For an API server without KWOK (admission tests): creates the nodes and reports them Ready as
   * KWOK would. Returns how many.
   */
  public static int apply(KubernetesClient client) {
    List<Node> nodes = nodes();
    for (Node node : nodes) {
      client.resource(node).serverSideApply();
      client
          .nodes()
          .withName(node.getMetadata().getName())
          .editStatus(
              n -> {
                n.setStatus(node.getStatus());
                n.getStatus()
                    .setConditions(
                        List.of(
                            new NodeConditionBuilder()
                                .withType("Ready")
                                .withStatus("True")
                                .withReason("KubeletReady")
                                .build()));
                return n;
              });
      // Only the node's own taints: the API server's not-ready taint is lifted, as the node
      // lifecycle controller would once the node reports Ready.
      client
          .nodes()
          .withName(node.getMetadata().getName())
          .edit(
              n -> {
                n.getSpec().setTaints(node.getSpec().getTaints());
                return n;
              });
    }
    return nodes.size();
  }

  private static Node node(
      String name, Map<String, String> labels, List<Taint> taints, Map<String, String> devices) {
    Map<String, String> all = new HashMap<>(labels);
    all.put("berth.dev/simulated", "true");
    return KwokNodes.node(name, all, taints, devices);
  }

  private static Taint taint(String key, String value) {
    return new Taint("NoSchedule", key, null, value);
  }
}
