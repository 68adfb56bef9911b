package dev.berth.local;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Taint;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Node objects for KWOK to run: the {@link Kwok#NODE_ANNOTATION} it manages them by, the labels a
 * kubelet sets, and the capacity in status (KWOK keeps what a Node is created with, as a kubelet
 * reports its machine's).
 */
public final class KwokNodes {
  private KwokNodes() {}

  /**
   * A node of 96 CPUs and 1Ti of memory with the given labels, taints and extended resources (such
   * as {@code nvidia.com/gpu: 8}).
   */
  public static Node node(
      String name, Map<String, String> labels, List<Taint> taints, Map<String, String> devices) {
    Map<String, String> all = new HashMap<>(labels);
    all.put("kubernetes.io/hostname", name);
    all.put("kubernetes.io/os", "linux");
    all.put("kubernetes.io/arch", "amd64");
    all.put("type", "kwok");
    Map<String, Quantity> capacity =
        new HashMap<>(
            Map.of(
                "cpu", new Quantity("96"),
                "memory", new Quantity("1Ti"),
                "pods", new Quantity("110")));
    devices.forEach((resource, amount) -> capacity.put(resource, new Quantity(amount)));
    return new NodeBuilder()
        .withNewMetadata()
        .withName(name)
        .withLabels(all)
        .addToAnnotations(Kwok.NODE_ANNOTATION, "fake")
        .endMetadata()
        .withNewSpec()
        .withTaints(taints)
        .endSpec()
        .withNewStatus()
        .withCapacity(capacity)
        .withAllocatable(capacity)
        .endStatus()
        .build();
  }
}
