package dev.berth.operator.usage;

import dev.berth.api.v1beta1.Condition;
import dev.berth.api.v1beta1.Workload;
import dev.berth.api.v1beta1.WorkloadUsage;
import dev.berth.engine.quota.Quantity;
import dev.berth.engine.usage.UsageOwner;
import dev.berth.engine.usage.UsageRequest;
import dev.berth.engine.usage.UsageTotals;
import dev.berth.engine.usage.WorkloadObservation;
import dev.berth.operator.Timestamps;
import dev.berth.operator.admission.StatusConditions;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Workloads as the usage ledger reads them, and its totals as status.usage. */
public final class UsageTranslator {
  /** Label of a Namespace (or of a Workload, which wins) naming who pays for its usage. */
  public static final String COST_CENTRE_LABEL = "berth.dev/cost-centre";

  private UsageTranslator() {}

  /**
   * @param namespaceCostCentre the namespace's {@link #COST_CENTRE_LABEL}, or null
   */
  public static WorkloadObservation observation(Workload wl, String namespaceCostCentre) {
    var status = wl.getStatus();
    Long reservedAt = null;
    String clusterQueue = "";
    List<UsageRequest> requests = new ArrayList<>();
    if (StatusConditions.hasQuotaReserved(wl)) {
      reservedAt = time(wl, StatusConditions.QUOTA_RESERVED);
      clusterQueue = status.admission.clusterQueue;
      if (status.admission.podSetAssignments != null) {
        for (var ps : status.admission.podSetAssignments) {
          if (ps.flavors == null || ps.resourceUsage == null) {
            continue;
          }
          ps.flavors.forEach(
              (resource, flavor) -> {
                var q = ps.resourceUsage.get(resource);
                if (q != null) {
                  requests.add(
                      new UsageRequest(
                          ps.name, flavor, resource, Quantity.parse(resource, q.toString())));
                }
              });
        }
      }
    }
    Long releasedAt =
        status != null
                && StatusConditions.find(status.conditions, StatusConditions.QUOTA_RESERVED)
                    .map(c -> !c.isTrue())
                    .orElse(false)
            ? time(wl, StatusConditions.QUOTA_RESERVED)
            : null;
    Long finishedAt = StatusConditions.isFinished(wl) ? time(wl, StatusConditions.FINISHED) : null;
    String costCentre =
        wl.getMetadata().getLabels() == null
            ? null
            : wl.getMetadata().getLabels().get(COST_CENTRE_LABEL);
    if (costCentre == null) {
      costCentre = namespaceCostCentre == null ? "" : namespaceCostCentre;
    }
    WorkloadUsage recorded = status == null ? null : status.usage;
    return new WorkloadObservation(
        wl.getMetadata().getUid(),
        wl.getMetadata().getNamespace() + "/" + wl.getMetadata().getName(),
        new UsageOwner(
            wl.getMetadata().getNamespace(),
            wl.getSpec() == null || wl.getSpec().queueName == null ? "" : wl.getSpec().queueName,
            clusterQueue,
            costCentre),
        reservedAt,
        releasedAt,
        finishedAt,
        requests,
        recorded == null || recorded.lastRunStart == null
            ? null
            : Timestamps.millis(recorded.lastRunStart));
  }

  private static Long time(Workload wl, String type) {
    return StatusConditions.find(wl.getStatus().conditions, type)
        .map((Condition c) -> c.lastTransitionTime)
        .map(Timestamps::millis)
        .orElse(null);
  }

  public static UsageTotals totals(WorkloadUsage usage) {
    if (usage == null) {
      return UsageTotals.none();
    }
    Map<UsageTotals.Key, Long> requested = new LinkedHashMap<>();
    Map<UsageTotals.Key, BigDecimal> resourceSeconds = new LinkedHashMap<>();
    if (usage.resources != null) {
      for (WorkloadUsage.Entry e : usage.resources) {
        UsageTotals.Key key = new UsageTotals.Key(e.podSet, e.flavor, e.resource);
        if (e.requested != null) {
          requested.put(key, Quantity.parse(e.resource, e.requested));
        }
        resourceSeconds.put(
            key, e.resourceSeconds == null ? BigDecimal.ZERO : new BigDecimal(e.resourceSeconds));
      }
    }
    return new UsageTotals(
        usage.runs == null ? 0 : usage.runs,
        usage.clusterQueue == null && usage.costCentre == null
            ? null
            : new UsageOwner(
                null, null, usage.clusterQueue, usage.costCentre == null ? "" : usage.costCentre),
        usage.lastRunStart == null ? null : Timestamps.millis(usage.lastRunStart),
        usage.lastRunEnd == null ? null : Timestamps.millis(usage.lastRunEnd),
        usage.occupiedSeconds == null ? BigDecimal.ZERO : new BigDecimal(usage.occupiedSeconds),
        requested,
        resourceSeconds);
  }

  private static String time(Long millis) {
    return millis == null ? null : Instant.ofEpochMilli(millis).toString();
  }

  public static WorkloadUsage toApi(UsageTotals totals) {
    WorkloadUsage out = new WorkloadUsage();
    out.runs = totals.runs();
    if (totals.owner() != null) {
      out.clusterQueue = totals.owner().clusterQueue();
      out.costCentre = totals.owner().costCentre().isEmpty() ? null : totals.owner().costCentre();
    }
    out.lastRunStart = time(totals.lastRunStart());
    out.lastRunEnd = time(totals.lastRunEnd());
    out.occupiedSeconds = UsageTotals.text(totals.occupiedSeconds());
    out.resources = new ArrayList<>();
    totals
        .resourceSeconds()
        .forEach(
            (key, seconds) -> {
              WorkloadUsage.Entry e = new WorkloadUsage.Entry();
              e.podSet = key.podSet();
              e.flavor = key.flavor();
              e.resource = key.resource();
              Long requested = totals.requested().get(key);
              e.requested = requested == null ? null : Quantity.format(key.resource(), requested);
              e.resourceSeconds = UsageTotals.text(seconds);
              out.resources.add(e);
            });
    return out;
  }
}
