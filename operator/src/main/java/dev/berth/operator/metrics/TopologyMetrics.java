package dev.berth.operator.metrics;

import dev.berth.engine.AdmissionEngine;
import dev.berth.engine.quota.Quantity;
import dev.berth.engine.topology.FragmentationReport;
import dev.berth.engine.topology.NodeInventory;
import dev.berth.operator.admission.AdmissionLoop;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * Fragmentation of topology-aware flavors, refreshed after admission cycles on the loop thread, at
 * most once a second (pod churn runs many cycles; a scrape wants seconds, not every event):
 *
 * <ul>
 *   <li>{@code berth_topology_domain_free{flavor,level,domain,resource}}: free capacity of every
 *       domain at every level, in the resource's natural unit; {@code domain} is the domain's
 *       values joined by "/" (block/rack/host).
 *   <li>{@code berth_topology_largest_gang_pods{flavor,level,resource}}: the most pods of one unit
 *       of the resource (1 GPU, 1 cpu, 1 GiB of memory) that one domain of the level holds now: the
 *       largest gang a {@code required} request at that level could get.
 * </ul>
 */
public final class TopologyMetrics implements Consumer<AdmissionLoop.CycleOutcome> {
  private static final long REFRESH_NANOS = 1_000_000_000L;
  private static final long GIB = 1L << 30;

  private final AdmissionEngine engine;
  private final GaugeTable domainFree;
  private final GaugeTable largestGang;
  private long refreshedAt = Long.MIN_VALUE / 2;

  public TopologyMetrics(MeterRegistry registry, AdmissionEngine engine) {
    this.engine = engine;
    domainFree =
        new GaugeTable(
            registry,
            "berth_topology_domain_free",
            "Free capacity of each topology domain of a topology-aware flavor, per level and resource");
    largestGang =
        new GaugeTable(
            registry,
            "berth_topology_largest_gang_pods",
            "Most one-unit pods (1 GPU, 1 cpu, 1 GiB) one domain of the level holds now");
  }

  @Override
  public void accept(AdmissionLoop.CycleOutcome outcome) {
    long now = System.nanoTime();
    if (now - refreshedAt < REFRESH_NANOS) {
      return;
    }
    refreshedAt = now;
    refresh();
  }

  /** Recomputes every row now. */
  public void refresh() {
    Map<Tags, Double> free = new HashMap<>();
    Map<Tags, Double> gangs = new HashMap<>();
    for (Map.Entry<String, NodeInventory> e : engine.topologyInventories().entrySet()) {
      String flavor = e.getKey();
      NodeInventory inventory = e.getValue();
      for (String resource : resources(inventory)) {
        FragmentationReport report =
            FragmentationReport.of(inventory, Map.of(resource, unit(resource)));
        for (FragmentationReport.LevelReport level : report.levels()) {
          Tags byLevel = Tags.of("flavor", flavor, "level", level.level(), "resource", resource);
          gangs.put(byLevel, (double) level.largestGang());
          for (FragmentationReport.DomainFree d : level.domains()) {
            free.put(
                byLevel.and("domain", String.join("/", d.values())),
                BerthMetrics.human(resource, d.free().getOrDefault(resource, 0L)));
          }
        }
      }
    }
    domainFree.replaceAll(free);
    largestGang.replaceAll(gangs);
  }

  /** cpu, memory and extended resources (nvidia.com/gpu): what quotas are written in. */
  public static TreeSet<String> resources(NodeInventory inventory) {
    TreeSet<String> out = new TreeSet<>();
    for (String r : inventory.freeOf(java.util.List.of()).keySet()) {
      if (r.equals("cpu") || r.equals("memory") || r.contains("/")) {
        out.add(r);
      }
    }
    return out;
  }

  /** The one-unit pod of a resource the largest-gang figure counts: 1 GPU, 1 cpu, 1 GiB. */
  public static long unit(String resource) {
    if (Quantity.isMilli(resource)) {
      return 1000;
    }
    return resource.equals("memory") ? GIB : 1;
  }
}
