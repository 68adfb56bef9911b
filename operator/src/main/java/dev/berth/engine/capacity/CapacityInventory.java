package dev.berth.engine.capacity;

import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The nodes capacity is counted on, and the requests of the running pods bound to each, kept
 * incrementally from Node and Pod observations so that a capacity report never scans pods.
 * Single-threaded (the admission loop's thread).
 */
public final class CapacityInventory {
  private final Map<String, CapacityNode> nodes = new TreeMap<>();
  private final Map<String, BoundPod> pods = new HashMap<>();
  private final Map<String, Map<String, Long>> inUseByNode = new HashMap<>();

  private record BoundPod(String node, Map<String, Long> requests) {}

  /** Returns whether anything capacity accounting reads changed. */
  public boolean upsertNode(CapacityNode node) {
    return !node.equals(nodes.put(node.name(), node));
  }

  public boolean deleteNode(String name) {
    return nodes.remove(name) != null;
  }

  /** A pod bound to a node and not finished; requests in canonical units. */
  public void upsertPod(String uid, String nodeName, Map<String, Long> requests) {
    BoundPod pod = new BoundPod(nodeName, Map.copyOf(requests));
    BoundPod old = pods.put(uid, pod);
    if (pod.equals(old)) {
      return;
    }
    if (old != null) {
      add(old, -1);
    }
    add(pod, 1);
  }

  /** The pod finished, was deleted, or is not bound: it uses nothing. */
  public void deletePod(String uid) {
    BoundPod old = pods.remove(uid);
    if (old != null) {
      add(old, -1);
    }
  }

  public Collection<CapacityNode> nodes() {
    return Collections.unmodifiableCollection(nodes.values());
  }

  /** Requests of the running pods bound to the node, by resource. */
  public Map<String, Long> inUse(String nodeName) {
    return inUseByNode.getOrDefault(nodeName, Map.of());
  }

  private void add(BoundPod pod, int sign) {
    Map<String, Long> sums = inUseByNode.computeIfAbsent(pod.node(), n -> new HashMap<>());
    pod.requests().forEach((r, v) -> sums.merge(r, sign * v, Long::sum));
    sums.values().removeIf(v -> v == 0);
    if (sums.isEmpty()) {
      inUseByNode.remove(pod.node());
    }
  }
}
