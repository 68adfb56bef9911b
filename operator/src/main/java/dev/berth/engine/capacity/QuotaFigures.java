package dev.berth.engine.capacity;

import java.util.Map;

/**
 * What quota says of one flavor, per resource in canonical units: the nominal quota committed to
 * ClusterQueues and Cohorts, the most one ClusterQueue could reach by borrowing, and what admitted
 * workloads reserve now.
 */
public record QuotaFigures(
    Map<String, Long> committed, Map<String, Long> borrowingPeak, Map<String, Long> reserved) {

  public QuotaFigures {
    committed = Map.copyOf(committed);
    borrowingPeak = Map.copyOf(borrowingPeak);
    reserved = Map.copyOf(reserved);
  }

  public static QuotaFigures none() {
    return new QuotaFigures(Map.of(), Map.of(), Map.of());
  }
}
