package dev.berth.engine.capacity;

import dev.berth.engine.model.NodeLabelMatcher;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What capacity accounting needs of a Node: labels, what the kubelet publishes as capacity and as
 * allocatable (canonical units, as {@link dev.berth.engine.quota.Quantity}), readiness, cordon, and
 * the keys of its NoSchedule and NoExecute taints (PreferNoSchedule keeps pods coming).
 */
public record CapacityNode(
    String name,
    Map<String, String> labels,
    Map<String, Long> capacity,
    Map<String, Long> allocatable,
    boolean ready,
    boolean unschedulable,
    Set<String> blockingTaintKeys) {

  public CapacityNode {
    Objects.requireNonNull(name, "name");
    labels = Map.copyOf(labels);
    capacity = Map.copyOf(capacity);
    allocatable = Map.copyOf(allocatable);
    blockingTaintKeys = Set.copyOf(blockingTaintKeys);
  }

  /** Whether the node carries every one of the flavor's node labels. */
  public boolean matches(Map<String, String> nodeLabels) {
    return NodeLabelMatcher.carriesAll(labels, nodeLabels);
  }
}
