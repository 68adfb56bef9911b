package dev.berth.engine.capacity;

import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The nodes capacity is counted on, the requests of the running pods bound to each, and the DRA
 * devices drivers publish for each (ResourceSlices, per mapped quota resource), kept incrementally
 * from Node, Pod and ResourceSlice observations so that a capacity report never scans pods.
 * Single-threaded (the admission loop's thread).
 */
public final class CapacityInventory {
  private final Map<String, CapacityNode> nodes = new TreeMap<>();
  private final Map<String, BoundPod> pods = new HashMap<>();
  private final Map<String, Map<String, Long>> inUseByNode = new HashMap<>();
  private final Map<String, Map<String, Long>> devicesByNode = new HashMap<>();

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

  /**
   * The DRA devices published for the node, per quota resource, replacing what was held (empty:
   * none). Returns whether anything changed.
   */
  public boolean devices(String nodeName, Map<String, Long> devices) {
    Map<String, Long> held = Map.copyOf(devices);
    Map<String, Long> old =
        held.isEmpty() ? devicesByNode.remove(nodeName) : devicesByNode.put(nodeName, held);
    return !held.equals(old == null ? Map.of() : old);
  }

  /** The DRA devices published for the node, per quota resource. */
  public Map<String, Long> devices(String nodeName) {
    return devicesByNode.getOrDefault(nodeName, Map.of());
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
