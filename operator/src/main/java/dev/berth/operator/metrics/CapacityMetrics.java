package dev.berth.operator.metrics;

import dev.berth.engine.capacity.FlavorCapacity;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * Capacity per flavor and resource, in the resource's natural unit (cores, bytes, devices):
 *
 * <ul>
 *   <li>{@code berth_flavor_capacity{flavor,resource,kind}} with kind physical, allocatable,
 *       platform_reserved, committed, borrowing_peak, reserved, in_use (docs/capacity.md);
 *   <li>{@code berth_flavor_overcommit_ratio{flavor,resource}}: committed ÷ allocatable;
 *   <li>{@code berth_flavor_nodes{flavor,state=matching|allocatable}};
 *   <li>{@code berth_flavor_shared{flavor}}: 1 when the flavor's GPUs are time-sliced or MPS.
 * </ul>
 *
 * Rows of a deleted flavor or a resource no longer published are removed.
 */
public final class CapacityMetrics {
  private final GaugeTable capacity;
  private final GaugeTable ratio;
  private final GaugeTable nodes;
  private final GaugeTable shared;

  public CapacityMetrics(MeterRegistry registry) {
    capacity =
        new GaugeTable(
            registry,
            "berth_flavor_capacity",
            "Capacity of a flavor's nodes and the quota committed on it, by kind");
    ratio =
        new GaugeTable(
            registry,
            "berth_flavor_overcommit_ratio",
            "Nominal quota committed on a flavor divided by its allocatable capacity");
    nodes =
        new GaugeTable(
            registry,
            "berth_flavor_nodes",
            "Nodes matching a flavor's nodeLabels, and those counted as allocatable");
    shared =
        new GaugeTable(
            registry,
            "berth_flavor_shared",
            "1 when the flavor's GPUs are time-sliced or MPS shares, not exclusive devices");
  }

  public void replaceAll(Collection<FlavorCapacity> flavors) {
    Map<Tags, Double> capacityRows = new HashMap<>();
    Map<Tags, Double> ratioRows = new HashMap<>();
    Map<Tags, Double> nodeRows = new HashMap<>();
    Map<Tags, Double> sharedRows = new HashMap<>();
    for (FlavorCapacity f : flavors) {
      Tags flavor = Tags.of("flavor", f.flavor());
      nodeRows.put(flavor.and("state", "matching"), (double) f.nodes());
      nodeRows.put(flavor.and("state", "allocatable"), (double) f.allocatableNodes());
      sharedRows.put(flavor, f.sharing() == null ? 0.0 : 1.0);
      for (FlavorCapacity.ResourceCapacity r : f.resources()) {
        Tags fr = flavor.and("resource", r.resource());
        String n = r.resource();
        capacityRows.put(fr.and("kind", "physical"), BerthMetrics.human(n, r.physical()));
        capacityRows.put(fr.and("kind", "allocatable"), BerthMetrics.human(n, r.allocatable()));
        capacityRows.put(
            fr.and("kind", "platform_reserved"), BerthMetrics.human(n, r.platformReserved()));
        capacityRows.put(fr.and("kind", "committed"), BerthMetrics.human(n, r.committed()));
        capacityRows.put(
            fr.and("kind", "borrowing_peak"), BerthMetrics.human(n, r.borrowingPeak()));
        capacityRows.put(fr.and("kind", "reserved"), BerthMetrics.human(n, r.reserved()));
        capacityRows.put(fr.and("kind", "in_use"), BerthMetrics.human(n, r.inUse()));
        ratioRows.put(fr, r.overCommitRatio());
      }
    }
    capacity.replaceAll(capacityRows);
    ratio.replaceAll(ratioRows);
    nodes.replaceAll(nodeRows);
    shared.replaceAll(sharedRows);
  }
}
