package dev.berth.engine.capacity;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Computes a flavor's capacity from its nodes and its quota figures: physical (every matching
 * node's capacity), allocatable (the usable nodes' allocatable minus the platform reservation),
 * committed, borrowing peak, reserved, and in use. Device-plugin resources are counted exactly as
 * published: a MIG profile is its own resource and a time-sliced GPU is a share, never a device.
 * DRA devices a node's ResourceSlices publish count, per mapped quota resource, in its capacity and
 * (when the node is usable) its allocatable, as if the kubelet published them; on a flavor with
 * device selectors, only those they select.
 */
public final class FlavorCapacityCalculator {
  /** Labels of NVIDIA's GPU feature discovery on nodes whose GPUs are shared. */
  public static final String SHARING_STRATEGY_LABEL = "nvidia.com/gpu.sharing-strategy";

  public static final String REPLICAS_LABEL = "nvidia.com/gpu.replicas";

  private final Set<String> excludedTaintKeys;

  /**
   * @param excludedTaintKeys NoSchedule/NoExecute taint keys that take a node out of allocatable
   *     capacity (maintenance, failure); other taints, such as the flavor's own, do not.
   */
  public FlavorCapacityCalculator(Set<String> excludedTaintKeys) {
    this.excludedTaintKeys = Set.copyOf(excludedTaintKeys);
  }

  public FlavorCapacity compute(
      FlavorDefinition flavor, QuotaFigures quota, CapacityInventory inventory) {
    Map<String, Long> physical = new HashMap<>();
    Map<String, Long> usable = new HashMap<>();
    Map<String, Long> inUse = new HashMap<>();
    Map<String, String> unusable = new TreeMap<>();
    Set<String> strategies = new TreeSet<>();
    Set<String> replicas = new TreeSet<>();
    Set<String> published = new TreeSet<>();
    int nodes = 0;
    for (CapacityNode node : inventory.nodes()) {
      if (!node.matches(flavor.nodeLabels())) {
        continue;
      }
      nodes++;
      Map<String, Long> devices = inventory.devices(node.name(), flavor.deviceView());
      node.capacity().forEach((r, v) -> physical.merge(r, v, Long::sum));
      devices.forEach((r, v) -> physical.merge(r, v, Long::sum));
      published.addAll(node.capacity().keySet());
      published.addAll(node.allocatable().keySet());
      published.addAll(devices.keySet());
      inventory.inUse(node.name()).forEach((r, v) -> inUse.merge(r, v, Long::sum));
      String why = unusableBecause(node);
      if (why == null) {
        node.allocatable().forEach((r, v) -> usable.merge(r, v, Long::sum));
        devices.forEach((r, v) -> usable.merge(r, v, Long::sum));
      } else {
        unusable.put(node.name(), why);
      }
      String strategy = node.labels().get(SHARING_STRATEGY_LABEL);
      if (strategy != null && !strategy.equals("none")) {
        strategies.add(strategy);
        replicas.add(node.labels().getOrDefault(REPLICAS_LABEL, ""));
      }
    }
    FlavorCapacity.Sharing sharing = sharing(strategies, replicas, published);
    List<FlavorCapacity.ResourceCapacity> resources = new java.util.ArrayList<>();
    for (String r : resourcesOf(flavor, quota, published)) {
      long reservation = flavor.platformReservation().getOrDefault(r, 0L);
      resources.add(
          new FlavorCapacity.ResourceCapacity(
              r,
              physical.getOrDefault(r, 0L),
              Math.max(0, usable.getOrDefault(r, 0L) - reservation),
              reservation,
              quota.committed().getOrDefault(r, 0L),
              quota.borrowingPeak().getOrDefault(r, 0L),
              quota.reserved().getOrDefault(r, 0L),
              inUse.getOrDefault(r, 0L),
              (sharing != null && isGpu(r)) || r.endsWith(".shared")));
    }
    return new FlavorCapacity(
        flavor.name(), nodes, nodes - unusable.size(), unusable, sharing, resources);
  }

  /** Null when the node counts as allocatable; otherwise the first reason it does not. */
  private String unusableBecause(CapacityNode node) {
    if (!node.ready()) {
      return "NotReady";
    }
    if (node.unschedulable()) {
      return "Cordoned";
    }
    for (String key : new TreeSet<>(node.blockingTaintKeys())) {
      if (excludedTaintKeys.contains(key)) {
        return "Tainted " + key;
      }
    }
    return null;
  }

  /**
   * Resources with quota, reservations or usage in the flavor, and every cpu, memory and extended
   * resource its nodes publish (pods, ephemeral-storage and hugepages only when quota names them).
   */
  private static Set<String> resourcesOf(
      FlavorDefinition flavor, QuotaFigures quota, Set<String> published) {
    Set<String> out = new TreeSet<>();
    out.addAll(quota.committed().keySet());
    out.addAll(quota.reserved().keySet());
    out.addAll(flavor.platformReservation().keySet());
    for (String r : published) {
      if (r.equals("cpu") || r.equals("memory") || r.contains("/")) {
        out.add(r);
      }
    }
    return out;
  }

  private static FlavorCapacity.Sharing sharing(
      Set<String> strategies, Set<String> replicas, Set<String> published) {
    if (strategies.isEmpty()) {
      boolean renamed = published.stream().anyMatch(r -> r.endsWith(".shared"));
      return renamed ? new FlavorCapacity.Sharing("time-slicing", null) : null;
    }
    String strategy = strategies.size() == 1 ? strategies.iterator().next() : "mixed";
    Integer count = null;
    if (replicas.size() == 1) {
      try {
        count = Integer.valueOf(replicas.iterator().next());
      } catch (NumberFormatException e) {
        count = null;
      }
    }
    return new FlavorCapacity.Sharing(strategy, count);
  }

  /** A whole GPU or a MIG profile, as NVIDIA's device plugin publishes them. */
  static boolean isGpu(String resource) {
    return resource.startsWith("nvidia.com/gpu") || resource.startsWith("nvidia.com/mig-");
  }
}
