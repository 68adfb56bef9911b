package dev.berth.operator.capacity;

import dev.berth.api.v1beta1.ResourceGroup;
import dev.berth.engine.FlavorUsage;
import dev.berth.engine.StatusView;
import dev.berth.engine.capacity.QuotaFigures;
import dev.berth.engine.quota.Quantity;
import dev.berth.operator.admission.ClusterView;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What quota promises per flavor: nominal quotas of ClusterQueues and Cohorts summed, the largest
 * borrowing reach of one ClusterQueue (from the engine's quota tree), and what is reserved now.
 */
final class QuotaCommitments {
  private final Map<String, Map<String, Long>> committed = new HashMap<>();
  private final Map<String, Map<String, Long>> peak = new HashMap<>();
  private final Map<String, Map<String, Long>> reserved = new HashMap<>();

  private QuotaCommitments() {}

  /** Read on the admission loop's thread, from the state the last cycle decided on. */
  static QuotaCommitments of(ClusterView state) {
    QuotaCommitments out = new QuotaCommitments();
    StatusView engine = state.engineStatus();
    for (var cq : List.copyOf(state.clusterQueues())) {
      String name = cq.getMetadata().getName();
      if (cq.getSpec() != null) {
        out.addNominal(cq.getSpec().resourceGroups);
        forEachQuota(
            cq.getSpec().resourceGroups,
            (flavor, resource, nominal) ->
                out.peak
                    .computeIfAbsent(flavor, f -> new HashMap<>())
                    .merge(resource, engine.potentialAvailable(name, flavor, resource), Math::max));
      }
      for (FlavorUsage u : engine.usage(name)) {
        out.reserved
            .computeIfAbsent(u.flavor(), f -> new HashMap<>())
            .merge(u.resource(), u.total(), Long::sum);
      }
    }
    for (var cohort : List.copyOf(state.cohorts())) {
      if (cohort.getSpec() != null) {
        out.addNominal(cohort.getSpec().resourceGroups);
      }
    }
    return out;
  }

  QuotaFigures of(String flavor) {
    return new QuotaFigures(
        committed.getOrDefault(flavor, Map.of()),
        peak.getOrDefault(flavor, Map.of()),
        reserved.getOrDefault(flavor, Map.of()));
  }

  private void addNominal(List<ResourceGroup> groups) {
    forEachQuota(
        groups,
        (flavor, resource, nominal) ->
            committed
                .computeIfAbsent(flavor, f -> new HashMap<>())
                .merge(resource, nominal, Long::sum));
  }

  private interface QuotaVisitor {
    void visit(String flavor, String resource, long nominal);
  }

  private static void forEachQuota(List<ResourceGroup> groups, QuotaVisitor visitor) {
    if (groups == null) {
      return;
    }
    for (ResourceGroup g : groups) {
      if (g.flavors == null) {
        continue;
      }
      for (var f : g.flavors) {
        if (f.resources == null) {
          continue;
        }
        for (var r : f.resources) {
          if (r.nominalQuota != null) {
            visitor.visit(f.name, r.name, Quantity.parse(r.name, r.nominalQuota.toString()));
          }
        }
      }
    }
  }
}
