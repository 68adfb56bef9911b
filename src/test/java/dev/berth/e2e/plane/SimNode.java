package dev.berth.e2e.plane;

import dev.berth.local.KwokNodes;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Taint;
import java.util.List;
import java.util.Map;

/**
 * A simulated GPU Node for KWOK to run: its name, labels, taints and capacity. KWOK manages only
 * Nodes with the {@code kwok.x-k8s.io/node: fake} annotation, which {@link #toNode()} sets.
 */
public record SimNode(String name, Map<String, String> labels, List<Taint> taints, int gpus) {
  public static final String GPU = "nvidia.com/gpu";
  public static final String GPU_PRODUCT = "nvidia.com/gpu.product";
  public static final String H100 = "NVIDIA-H100-80GB-HBM3";
  public static final String A100 = "NVIDIA-A100-SXM4-80GB";
  public static final String ZONE = "topology.kubernetes.io/zone";
  public static final String RACK = "topology.berth.dev/rack";
  public static final String HOSTNAME = "kubernetes.io/hostname";

  /** On-demand or spot, as cloud node pools label it. */
  public static final String LIFECYCLE = "node.berth.dev/lifecycle";

  public SimNode {
    labels = Map.copyOf(labels);
    taints = List.copyOf(taints);
  }

  /** An 8-GPU node of the given model in the given zone and rack, on demand, untainted. */
  public static SimNode gpu(String name, String product, String zone, String rack) {
    return new SimNode(
        name,
        Map.of(GPU_PRODUCT, product, ZONE, zone, RACK, rack, LIFECYCLE, "on-demand"),
        List.of(),
        8);
  }

  /** A spot node: labelled spot and tainted so only pods that tolerate spot land on it. */
  public static SimNode spot(String name, String product, String zone, String rack) {
    return new SimNode(
        name,
        Map.of(GPU_PRODUCT, product, ZONE, zone, RACK, rack, LIFECYCLE, "spot"),
        List.of(spotTaint()),
        8);
  }

  public static Taint spotTaint() {
    return new Taint("NoSchedule", LIFECYCLE, null, "spot");
  }

  /**
   * The Node object, capacity in status (Nodes take their status on create, as kubelets do), with
   * the local disk a kubelet reports too: the training operator's MPI launcher asks for some.
   */
  public Node toNode() {
    return KwokNodes.node(
        name, labels, taints, Map.of(GPU, Integer.toString(gpus), "ephemeral-storage", "1Ti"));
  }
}
