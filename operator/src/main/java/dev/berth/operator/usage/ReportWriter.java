package dev.berth.operator.usage;

import dev.berth.api.v1beta1.UsageReport;
import dev.berth.api.v1beta1.UsageReportSpec;
import dev.berth.api.v1beta1.Workload;
import dev.berth.engine.usage.MonthlyUsage;
import dev.berth.engine.usage.Run;
import dev.berth.engine.usage.UsageTotals;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.Instant;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Adds an ended run to its namespace's UsageReport of the month the run ended in, exactly once: the
 * report lists which workloads' runs it counts, and every write carries the resourceVersion it read
 * (a conflict is read again and decided again). The list is kept short: past {@link #PRUNE_AT}
 * entries, the oldest are dropped when their Workload's own status.usage already counts the run (it
 * is never offered again) or the Workload is gone.
 */
public final class ReportWriter implements UsageRecorder.Reports {
  static final int PRUNE_AT = 3000;
  static final int PRUNE_BATCH = 200;
  private static final int ATTEMPTS = 5;

  private final KubernetesClient client;
  private final Clock clock;

  public ReportWriter(KubernetesClient client, Clock clock) {
    this.client = client;
    this.clock = clock;
  }

  /**
   * @return whether the report counts the run now (false: it already did)
   * @throws KubernetesClientException when the API server keeps refusing; retried by the caller
   */
  @Override
  public boolean add(Run run, Map<UsageTotals.Key, BigDecimal> used) {
    String namespace = run.owner().namespace();
    String month = ReportTranslator.monthOf(run.end());
    for (int attempt = 1; ; attempt++) {
      UsageReport report = getOrCreate(namespace, month);
      MonthlyUsage before = ReportTranslator.usage(report.getStatus());
      if (before.counts(run)) {
        return false;
      }
      MonthlyUsage after = prune(namespace, before.plus(run, used));
      UsageReport copy = Serialization.clone(report);
      copy.setStatus(ReportTranslator.status(after, Instant.now(clock)));
      try {
        client.resource(copy).updateStatus();
        return true;
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409 || attempt == ATTEMPTS) {
          throw e;
        }
      }
    }
  }

  private UsageReport getOrCreate(String namespace, String month) {
    var resource =
        client
            .resources(UsageReport.class)
            .inNamespace(namespace)
            .withName(UsageReport.nameFor(month));
    UsageReport report = resource.get();
    if (report != null) {
      return report;
    }
    UsageReport fresh = new UsageReport();
    fresh.getMetadata().setName(UsageReport.nameFor(month));
    fresh.getMetadata().setNamespace(namespace);
    fresh.setSpec(new UsageReportSpec());
    fresh.getSpec().month = month;
    try {
      return client.resource(fresh).create();
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409) {
        throw e;
      }
      return resource.require();
    }
  }

  private MonthlyUsage prune(String namespace, MonthlyUsage usage) {
    if (usage.counted().size() <= PRUNE_AT) {
      return usage;
    }
    Set<String> settled = new HashSet<>();
    for (String uid : usage.oldestCounted(PRUNE_BATCH)) {
      MonthlyUsage.Counted c = usage.counted().get(uid);
      String name = c.workload().substring(c.workload().indexOf('/') + 1);
      Workload wl = client.resources(Workload.class).inNamespace(namespace).withName(name).get();
      Long recorded =
          wl == null
              ? null
              : UsageTranslator.totals(wl.getStatus() == null ? null : wl.getStatus().usage)
                  .lastRunStart();
      if (wl == null
          || !uid.equals(wl.getMetadata().getUid())
          || (recorded != null && recorded >= c.runStart())) {
        settled.add(uid);
      }
    }
    return usage.forgetting(settled);
  }
}
