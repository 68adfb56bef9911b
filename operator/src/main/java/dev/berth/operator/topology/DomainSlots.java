package dev.berth.operator.topology;

import dev.berth.api.v1beta1.PodSetAssignment;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The pod slots of a topologyAssignment, per domain: a domain is the node labels of its values at
 * every level (its nodeSelector), and holds as many pods as the assignment counted for it.
 */
public final class DomainSlots {
  private final List<Map<String, String>> selectors = new ArrayList<>();
  private final List<Integer> free = new ArrayList<>();

  /** The first rank of each domain: domain i holds ranks first[i] .. first[i] + its count - 1. */
  private final List<Integer> first = new ArrayList<>();

  private int total;

  public DomainSlots(PodSetAssignment.TopologyAssignment assignment) {
    Map<Map<String, String>, Integer> byDomain = new LinkedHashMap<>();
    for (var d : assignment.domains) {
      Map<String, String> selector = new LinkedHashMap<>();
      for (int i = 0; i < assignment.levels.size() && i < d.values.size(); i++) {
        selector.put(assignment.levels.get(i), d.values.get(i));
      }
      byDomain.merge(selector, d.count == null ? 0 : d.count, Integer::sum);
    }
    byDomain.forEach(
        (selector, count) -> {
          selectors.add(selector);
          free.add(count);
          first.add(total);
          total += count;
        });
  }

  /** A pod already released into the domain its nodeSelector names keeps that slot. */
  public void take(Map<String, String> nodeSelector) {
    if (nodeSelector == null) {
      return;
    }
    for (int i = 0; i < selectors.size(); i++) {
      if (nodeSelector.entrySet().containsAll(selectors.get(i).entrySet())) {
        free.set(i, free.get(i) - 1);
        return;
      }
    }
  }

  /** How many pods the assignment places in all. */
  int total() {
    return total;
  }

  /**
   * The nodeSelector of the domain that holds {@code rank} in the assignment's order, taking its
   * slot; null when that domain is full (another pod was put there without its rank).
   */
  Map<String, String> forRank(int rank) {
    for (int i = selectors.size() - 1; i >= 0; i--) {
      if (rank >= first.get(i)) {
        if (free.get(i) <= 0) {
          return null;
        }
        free.set(i, free.get(i) - 1);
        return selectors.get(i);
      }
    }
    return null;
  }

  /** The nodeSelector of the next domain with a free slot, taking it; null when all are full. */
  public Map<String, String> next() {
    for (int i = 0; i < selectors.size(); i++) {
      if (free.get(i) > 0) {
        free.set(i, free.get(i) - 1);
        return selectors.get(i);
      }
    }
    return null;
  }
}
