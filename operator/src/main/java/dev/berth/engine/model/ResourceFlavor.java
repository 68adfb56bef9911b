package dev.berth.engine.model;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The engine's view of a ResourceFlavor: the node labels, taints and tolerations it stands for, the
 * Topology its nodes are described by (null: quota alone, no topology-aware placement), and the
 * device selectors its DRA requests must carry (docs/dra.md).
 */
public record ResourceFlavor(
    String name,
    Map<String, String> nodeLabels,
    List<Taint> nodeTaints,
    List<Toleration> tolerations,
    String topologyName,
    List<DeviceSelector> deviceSelectors) {
  public ResourceFlavor {
    Objects.requireNonNull(name, "name");
    nodeLabels = nodeLabels == null ? Map.of() : Map.copyOf(nodeLabels);
    nodeTaints = nodeTaints == null ? List.of() : List.copyOf(nodeTaints);
    tolerations = tolerations == null ? List.of() : List.copyOf(tolerations);
    deviceSelectors = deviceSelectors == null ? List.of() : List.copyOf(deviceSelectors);
  }

  /** A flavor without device selectors. */
  public ResourceFlavor(
      String name,
      Map<String, String> nodeLabels,
      List<Taint> nodeTaints,
      List<Toleration> tolerations,
      String topologyName) {
    this(name, nodeLabels, nodeTaints, tolerations, topologyName, null);
  }

  public ResourceFlavor(
      String name,
      Map<String, String> nodeLabels,
      List<Taint> nodeTaints,
      List<Toleration> tolerations) {
    this(name, nodeLabels, nodeTaints, tolerations, null);
  }

  public static ResourceFlavor named(String name) {
    return new ResourceFlavor(name, Map.of(), List.of(), List.of());
  }
}
