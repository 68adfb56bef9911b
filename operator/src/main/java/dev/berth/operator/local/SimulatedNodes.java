package dev.berth.operator.local;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeStatusBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Map;

/**
 * The H100 nodes of the samples' Topology dc1, as Node objects without a kubelet: 2 blocks × 2
 * racks × 4 nodes of 8 GPUs, labelled and tainted as samples/02 expects, Ready. Topology-aware
 * admission places onto these; nothing runs on them.
 */
public final class SimulatedNodes {
  public static final int BLOCKS = 2;
  public static final int RACKS_PER_BLOCK = 2;
  public static final int NODES_PER_RACK = 4;

  private SimulatedNodes() {}

  /** Creates (or updates) the nodes; returns how many. */
  public static int apply(KubernetesClient client) {
    int count = 0;
    for (int b = 1; b <= BLOCKS; b++) {
      for (int r = 1; r <= RACKS_PER_BLOCK; r++) {
        for (int n = 1; n <= NODES_PER_RACK; n++) {
          String block = "b" + b;
          String rack = block + "-r" + r;
          apply(client, block, rack, "h100-" + rack + "-n" + n);
          count++;
        }
      }
    }
    return count;
  }

  private static void apply(KubernetesClient client, String block, String rack, String name) {
    Node node = new NodeBuilder()
        .withNewMetadata().withName(name)
        .addToLabels(Map.of(
            "nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3",
            "topology.berth.dev/block", block,
            "topology.berth.dev/rack", rack,
            "kubernetes.io/hostname", name,
            "berth.dev/simulated", "true"))
        .endMetadata()
        // Only the GPU taint: the API server's not-ready taint is lifted, as the node lifecycle
        // controller would once the node reports Ready.
        .withNewSpec().addNewTaint().withKey("nvidia.com/gpu").withValue("present").withEffect("NoSchedule")
        .endTaint().endSpec()
        .build();
    client.resource(node).serverSideApply();
    client.nodes().withName(name).editStatus(n -> {
      n.setStatus(new NodeStatusBuilder()
          .addToAllocatable("nvidia.com/gpu", new Quantity("8"))
          .addToAllocatable("cpu", new Quantity("96"))
          .addToAllocatable("memory", new Quantity("1Ti"))
          .addToAllocatable("pods", new Quantity("110"))
          .addToCapacity("nvidia.com/gpu", new Quantity("8"))
          .addNewCondition().withType("Ready").withStatus("True").withReason("KubeletReady").endCondition()
          .build());
      return n;
    });
    client.nodes().withName(name).edit(n -> {
      n.getSpec().getTaints().removeIf(t -> !"nvidia.com/gpu".equals(t.getKey()));
      return n;
    });
  }
}
