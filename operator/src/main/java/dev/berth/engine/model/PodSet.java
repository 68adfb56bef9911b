package dev.berth.engine.model;

import dev.berth.engine.topology.TopologyRequest;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A group of identical pods. {@code requests} are per pod, in canonical units, sorted by resource
 * name so that equal podSets compare equal (the engine shares identical podSets between workloads).
 * {@code shared} is held once by the podSet whatever its count (the devices of a ResourceClaim its
 * pods share: one allocation however many pods use it, so partial admission does not shrink it).
 * {@code sharedClaims} are the requests of those claims, with the selectors they carry (a flavor
 * whose device selectors they lack does not fit, docs/dra.md). {@code minCount == null} means no
 * partial admission; {@code topologyRequest == null} means quota alone decides (no topology-aware
 * placement).
 */
public record PodSet(
    String name,
    int count,
    Integer minCount,
    Map<String, Long> requests,
    Map<String, String> nodeSelector,
    List<NodeSelectorTerm> requiredNodeAffinity,
    List<Toleration> tolerations,
    TopologyRequest topologyRequest,
    Map<String, Long> shared,
    List<SharedClaimRequest> sharedClaims) {
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
    shared =
        shared == null ? Map.of() : java.util.Collections.unmodifiableMap(new TreeMap<>(shared));
    sharedClaims = sharedClaims == null ? List.of() : List.copyOf(sharedClaims);
  }

  /** A podSet whose pods share no claim. */
  public PodSet(
      String name,
      int count,
      Integer minCount,
      Map<String, Long> requests,
      Map<String, String> nodeSelector,
      List<NodeSelectorTerm> requiredNodeAffinity,
      List<Toleration> tolerations,
      TopologyRequest topologyRequest) {
    this(
        name,
        count,
        minCount,
        requests,
        nodeSelector,
        requiredNodeAffinity,
        tolerations,
        topologyRequest,
        null,
        null);
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
        topologyRequest,
        shared,
        sharedClaims);
  }

  /**
   * What the podSet holds with {@code pods} pods: its requests times pods, plus what they share.
   */
  public Map<String, Long> total(int pods) {
    Map<String, Long> total = new TreeMap<>(shared);
    requests.forEach((r, v) -> total.merge(r, Math.multiplyExact(v, (long) pods), Long::sum));
    return total;
  }
}
