package dev.berth.engine.model;

import dev.berth.engine.topology.TopologyRequest;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A group of identical pods. {@code requests} are per pod, in canonical units, sorted by resource
 * name so that equal podSets compare equal (the engine shares identical podSets between workloads).
 * {@code minCount == null} means no partial admission; {@code topologyRequest == null} means quota
 * alone decides (no topology-aware placement).
 */
public record PodSet(
    String name,
    int count,
    Integer minCount,
    Map<String, Long> requests,
    Map<String, String> nodeSelector,
    List<NodeSelectorTerm> requiredNodeAffinity,
    List<Toleration> tolerations,
    TopologyRequest topologyRequest) {
  public PodSet {
    Objects.requireNonNull(name, "name");
    if (count < 0) {
      throw new IllegalArgumentException("podSet " + name + ": count must be >= 0");
    }
    if (minCount != null && (minCount < 1 || minCount > count)) {
      throw new IllegalArgumentException("podSet " + name + ": minCount must be in 1.." + count);
    }
    requests =
        requests == null
            ? Map.of()
            : java.util.Collections.unmodifiableMap(new TreeMap<>(requests));
    nodeSelector = nodeSelector == null ? Map.of() : Map.copyOf(nodeSelector);
    requiredNodeAffinity =
        requiredNodeAffinity == null ? List.of() : List.copyOf(requiredNodeAffinity);
    tolerations = tolerations == null ? List.of() : List.copyOf(tolerations);
  }

  /** A podSet placed by quota alone, without a topology request. */
  public PodSet(
      String name,
      int count,
      Integer minCount,
      Map<String, Long> requests,
      Map<String, String> nodeSelector,
      List<NodeSelectorTerm> requiredNodeAffinity,
      List<Toleration> tolerations) {
    this(name, count, minCount, requests, nodeSelector, requiredNodeAffinity, tolerations, null);
  }

  /** The same podSet with another count (partial admission). */
  public PodSet withCount(int newCount) {
    return new PodSet(
        name,
        newCount,
        null,
        requests,
        nodeSelector,
        requiredNodeAffinity,
        tolerations,
        topologyRequest);
  }
}
