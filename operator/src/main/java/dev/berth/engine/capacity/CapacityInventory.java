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

  /**
   * View, then node, then quota resource: the devices counted ({@link #ALL_DEVICES} or a flavor's).
   */
  private final Map<String, Map<String, Map<String, Long>>> devicesByView = new HashMap<>();

  /** The view of every device its DeviceClasses select, for flavors without device selectors. */
  public static final String ALL_DEVICES = "";

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
    return devices(nodeName, ALL_DEVICES, devices);
  }

  /**
   * As {@link #devices(String, Map)}, counted in {@code view}: the devices a flavor's device
   * selectors leave ({@link FlavorDefinition#deviceView()}), or {@link #ALL_DEVICES}.
   */
  public boolean devices(String nodeName, String view, Map<String, Long> devices) {
    Map<String, Long> held = Map.copyOf(devices);
    Map<String, Map<String, Long>> byNode =
        devicesByView.computeIfAbsent(view, v -> new HashMap<>());
    Map<String, Long> old = held.isEmpty() ? byNode.remove(nodeName) : byNode.put(nodeName, held);
    if (byNode.isEmpty()) {
      devicesByView.remove(view);
    }
    return !held.equals(old == null ? Map.of() : old);
  }

  /** Forgets a view's devices (its flavor is gone, or has no device selectors any more). */
  public void dropDeviceView(String view) {
    devicesByView.remove(view);
  }

  /** The DRA devices published for the node, per quota resource. */
  public Map<String, Long> devices(String nodeName) {
    return devices(nodeName, ALL_DEVICES);
  }

  /** The DRA devices of {@code view} published for the node, per quota resource. */
  public Map<String, Long> devices(String nodeName, String view) {
    return devicesByView.getOrDefault(view, Map.of()).getOrDefault(nodeName, Map.of());
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
