package dev.berth.engine.topology;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * How fragmented a flavor's free capacity is: per level, the free capacity of every domain and the
 * largest gang of a given pod shape that fits inside one domain of that level now.
 */
public record FragmentationReport(Map<String, Long> podShape, List<LevelReport> levels) {

  /** One level: its domains and the largest gang one of them holds. */
  public record LevelReport(String level, List<DomainFree> domains, long largestGang) {}

  /** A domain's free capacity (canonical units) and how many pods of the shape fit in it. */
  public record DomainFree(List<String> values, Map<String, Long> free, long podsThatFit) {}

  public static FragmentationReport of(NodeInventory inventory, Map<String, Long> podShape) {
    long[] pods = inventory.podCounts(inventory.vector(podShape));
    List<LevelReport> levels = new ArrayList<>();
    List<String> names = inventory.levels();
    for (int l = 0; l < names.size(); l++) {
      List<DomainFree> domains = new ArrayList<>();
      long largest = 0;
      for (TopologyDomain d : inventory.domainsAt(l)) {
        domains.add(new DomainFree(d.valueList(), inventory.freeMap(d), pods[d.id]));
        largest = Math.max(largest, pods[d.id]);
      }
      levels.add(new LevelReport(names.get(l), List.copyOf(domains), largest));
    }
    return new FragmentationReport(Map.copyOf(podShape), List.copyOf(levels));
  }

  /** The largest gang that fits in one domain of {@code level}. */
  public long largestGang(String level) {
    return levels.stream()
        .filter(r -> r.level().equals(level))
        .findFirst()
        .orElseThrow()
        .largestGang();
  }
}
