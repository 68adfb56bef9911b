package dev.berth.operator.capacity;

import dev.berth.api.v1beta1.Condition;
import dev.berth.api.v1beta1.FlavorResourceCapacity;
import dev.berth.api.v1beta1.ResourceFlavorStatus;
import dev.berth.engine.capacity.FlavorCapacity;
import dev.berth.engine.quota.Quantity;
import dev.berth.operator.admission.StatusConditions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * A ResourceFlavor's status from its capacity: the figures as quantities, and the OverCommitted and
 * CapacityShortfall conditions (the latter naming the workloads at risk).
 */
final class FlavorStatusBuilder {
  static final String OVER_COMMITTED = "OverCommitted";
  static final String CAPACITY_SHORTFALL = "CapacityShortfall";

  /** Workloads or nodes named in a message; the rest are counted. */
  private static final int NAMED = 10;

  private FlavorStatusBuilder() {}

  /**
   * @param previous the stored status (its conditions keep their transition times), or null
   * @param atRisk namespace/name of admitted workloads holding a short resource of the flavor
   */
  static ResourceFlavorStatus build(
      FlavorCapacity capacity,
      ResourceFlavorStatus previous,
      List<String> atRisk,
      Long generation,
      Instant now) {
    ResourceFlavorStatus status = new ResourceFlavorStatus();
    status.conditions = new ArrayList<>();
    if (previous != null && previous.conditions != null) {
      for (Condition c : previous.conditions) {
        Condition copy = new Condition(c.type, c.status, c.reason, c.message);
        copy.lastTransitionTime = c.lastTransitionTime;
        copy.observedGeneration = c.observedGeneration;
        status.conditions.add(copy);
      }
    }
    status.nodes = capacity.nodes();
    status.allocatableNodes = capacity.allocatableNodes();
    if (capacity.sharing() != null) {
      status.shared = true;
      status.sharingStrategy = capacity.sharing().strategy();
      status.sharingReplicas = capacity.sharing().replicas();
    }
    status.resources = new ArrayList<>();
    for (FlavorCapacity.ResourceCapacity r : capacity.resources()) {
      FlavorResourceCapacity out = new FlavorResourceCapacity();
      out.name = r.resource();
      out.physical = Quantity.format(r.resource(), r.physical());
      out.allocatable = Quantity.format(r.resource(), r.allocatable());
      out.platformReserved = Quantity.format(r.resource(), r.platformReserved());
      out.committed = Quantity.format(r.resource(), r.committed());
      out.borrowingPeak = Quantity.format(r.resource(), r.borrowingPeak());
      out.reserved = Quantity.format(r.resource(), r.reserved());
      out.inUse = Quantity.format(r.resource(), r.inUse());
      out.overCommitRatio = ratio(r.overCommitRatio());
      out.shared = r.shared() ? Boolean.TRUE : null;
      status.resources.add(out);
    }
    List<FlavorCapacity.ResourceCapacity> over = capacity.overCommitted();
    StatusConditions.set(
        status.conditions,
        OVER_COMMITTED,
        !over.isEmpty(),
        over.isEmpty() ? "WithinAllocatable" : "NominalQuotaExceedsAllocatable",
        over.isEmpty()
            ? "Nominal quota fits the allocatable capacity of the flavor's nodes"
            : "Nominal quota exceeds allocatable capacity: "
                + over.stream()
                    .map(r -> figure(r, "committed", r.committed()))
                    .collect(Collectors.joining("; "))
                + unusable(capacity),
        now);
    List<FlavorCapacity.ResourceCapacity> short_ = capacity.shortOfReserved();
    StatusConditions.set(
        status.conditions,
        CAPACITY_SHORTFALL,
        !short_.isEmpty(),
        short_.isEmpty() ? "ReservedWithinAllocatable" : "AllocatableBelowReserved",
        short_.isEmpty()
            ? "Admitted workloads fit the allocatable capacity of the flavor's nodes"
            : "Admitted workloads hold more than the usable nodes have: "
                + short_.stream()
                    .map(r -> figure(r, "reserved", r.reserved()))
                    .collect(Collectors.joining("; "))
                + unusable(capacity)
                + "; workloads at risk: "
                + named(atRisk),
        now);
    status.observedGeneration = generation;
    return status;
  }

  /** Two decimals, dot-separated whatever the locale; "+Inf" for quota on no capacity. */
  static String ratio(double ratio) {
    return Double.isInfinite(ratio) ? "+Inf" : String.format(Locale.ROOT, "%.2f", ratio);
  }

  private static String figure(FlavorCapacity.ResourceCapacity r, String what, long amount) {
    return r.resource()
        + " "
        + what
        + " "
        + Quantity.format(r.resource(), amount)
        + " > allocatable "
        + Quantity.format(r.resource(), r.allocatable());
  }

  private static String unusable(FlavorCapacity capacity) {
    if (capacity.unusableNodes().isEmpty()) {
      return "";
    }
    return " (not allocatable: "
        + capacity.unusableNodes().entrySet().stream()
            .limit(NAMED)
            .map(e -> e.getKey() + " " + e.getValue())
            .collect(Collectors.joining(", "))
        + (capacity.unusableNodes().size() > NAMED
            ? " and " + (capacity.unusableNodes().size() - NAMED) + " more"
            : "")
        + ")";
  }

  private static String named(List<String> atRisk) {
    if (atRisk.isEmpty()) {
      return "none";
    }
    String names = String.join(", ", atRisk.subList(0, Math.min(NAMED, atRisk.size())));
    return atRisk.size() > NAMED ? names + " and " + (atRisk.size() - NAMED) + " more" : names;
  }
}
