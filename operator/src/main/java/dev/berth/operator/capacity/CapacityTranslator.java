package dev.berth.operator.capacity;

import dev.berth.api.v1beta1.ResourceFlavor;
import dev.berth.engine.capacity.CapacityInventory;
import dev.berth.engine.capacity.CapacityNode;
import dev.berth.engine.capacity.FlavorDefinition;
import dev.berth.engine.quota.Quantity;
import io.fabric8.kubernetes.api.model.Node;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/** Nodes and ResourceFlavors as capacity accounting sees them. */
public final class CapacityTranslator {
  private CapacityTranslator() {}

  public static CapacityNode node(Node node) {
    var status = node.getStatus();
    var spec = node.getSpec();
    boolean ready =
        status != null
            && status.getConditions() != null
            && status.getConditions().stream()
                .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    Set<String> blocking = new HashSet<>();
    if (spec != null && spec.getTaints() != null) {
      for (var t : spec.getTaints()) {
        if ("NoSchedule".equals(t.getEffect()) || "NoExecute".equals(t.getEffect())) {
          blocking.add(t.getKey());
        }
      }
    }
    Map<String, String> labels = node.getMetadata().getLabels();
    return new CapacityNode(
        node.getMetadata().getName(),
        labels == null ? Map.of() : labels,
        quantities(status == null ? null : status.getCapacity()),
        quantities(status == null ? null : status.getAllocatable()),
        ready,
        spec != null && Boolean.TRUE.equals(spec.getUnschedulable()),
        blocking);
  }

  public static FlavorDefinition flavor(ResourceFlavor flavor) {
    var spec = flavor.getSpec();
    Map<String, Long> reservation = new LinkedHashMap<>();
    if (spec != null && spec.platformReservation != null) {
      spec.platformReservation.forEach(
          (r, q) -> reservation.put(r, Math.max(0, Quantity.parse(r, q.toString()))));
    }
    String name = flavor.getMetadata().getName();
    return new FlavorDefinition(
        name,
        spec == null || spec.nodeLabels == null ? Map.of() : spec.nodeLabels,
        reservation,
        hasDeviceSelectors(flavor) ? name : CapacityInventory.ALL_DEVICES);
  }

  /** Whether the flavor narrows its DRA devices: they are then counted in a view of its own. */
  static boolean hasDeviceSelectors(ResourceFlavor flavor) {
    return flavor.getSpec() != null
        && flavor.getSpec().deviceSelectors != null
        && !flavor.getSpec().deviceSelectors.isEmpty();
  }

  private static Map<String, Long> quantities(
      Map<String, io.fabric8.kubernetes.api.model.Quantity> in) {
    Map<String, Long> out = new LinkedHashMap<>();
    if (in != null) {
      in.forEach((r, q) -> out.put(r, Quantity.parse(r, q.toString())));
    }
    return out;
  }

  /** Requests of a pod bound to a node and not finished (topology-placed or not); else null. */
  public static Map<String, Long> runningRequests(io.fabric8.kubernetes.api.model.Pod pod) {
    if (pod.getSpec() == null || pod.getSpec().getNodeName() == null) {
      return null;
    }
    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
    if ("Succeeded".equals(phase) || "Failed".equals(phase)) {
      return null;
    }
    return quantities(dev.berth.operator.admission.PodRequests.of(pod.getSpec()));
  }
}
