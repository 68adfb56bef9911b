package dev.berth.operator.usage;

import dev.berth.api.v1beta1.UsageReport;
import dev.berth.api.v1beta1.UsageReportSpec;
import dev.berth.api.v1beta1.UsageReportStatus;
import dev.berth.api.v1beta1.Workload;
import dev.berth.engine.usage.MonthlyUsage;
import dev.berth.engine.usage.Run;
import dev.berth.engine.usage.UsageOwner;
import dev.berth.operator.kube.ApiErrors;
import dev.berth.operator.kube.ReadBack;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Adds ended runs to their namespace's UsageReport of the month they ended in, exactly once and as
 * many as are ready in one write: the report lists which workloads' runs it counts, and every write
 * carries the resourceVersion it read (a conflict is read again and decided again) and is sent
 * once, a write of unknown outcome read back ({@link #send}). The list is kept short: past {@link
 * #PRUNE_AT} entries, the oldest are dropped when their Workload's own status.usage already counts
 * the run (it is never offered again) or the Workload is gone.
 *
 * <p>A batch starts from the report as this writer's last write left it, kept for the reports
 * written most recently ({@link #CACHED_RUNS} counted runs in all), and reads it from the API
 * server only when it has none or a write meets a conflict: one GET of a month's report (up to
 * {@link #PRUNE_AT} runs) before every write was as much JSON as the write itself, on the operator
 * and on the API server.
 */
public final class ReportWriter implements UsageRecorder.Reports {
  static final int PRUNE_AT = 3000;
  static final int PRUNE_BATCH = 200;
  private static final int ATTEMPTS = 5;

  /** The counted runs the kept reports may hold together (~250 bytes of heap each). */
  static final int CACHED_RUNS = 20_000;

  private final KubernetesClient client;
  private final Clock clock;

  /** The budgets charging runs of these owners, as their Budgets' status has them now. */
  private final Function<Collection<UsageOwner>, List<UsageReportStatus.BudgetUse>> budgets;

  /**
   * Per namespace/month, the report as the API server returned it to this writer's last write,
   * least recently used first. Only the recorder's thread calls {@link #add}.
   */
  private final LinkedHashMap<String, UsageReport> lastWritten =
      new LinkedHashMap<>(16, 0.75f, true);

  public ReportWriter(KubernetesClient client, Clock clock) {
    this(client, clock, owners -> List.of());
  }

  public ReportWriter(
      KubernetesClient client,
      Clock clock,
      Function<Collection<UsageOwner>, List<UsageReportStatus.BudgetUse>> budgets) {
    this.client = client;
    this.clock = clock;
    this.budgets = budgets;
  }

  /**
   * @return the uids of the runs the report counts now and did not before
   * @throws KubernetesClientException when the API server keeps refusing; retried by the caller
   * @throws IllegalArgumentException for runs of more than one report
   */
  @Override
  public Set<String> add(List<UsageRecorder.Measured> runs) {
    if (runs.isEmpty()) {
      return Set.of();
    }
    Run first = runs.get(0).run();
    String namespace = first.owner().namespace();
    String month = ReportTranslator.monthOf(first.end());
    for (UsageRecorder.Measured m : runs) {
      if (!m.run().owner().namespace().equals(namespace)
          || !ReportTranslator.monthOf(m.run().end()).equals(month)) {
        throw new IllegalArgumentException(
            m.run().name() + " is not billed to " + namespace + "/" + UsageReport.nameFor(month));
      }
    }
    String key = namespace + "/" + month;
    for (int attempt = 1; ; attempt++) {
      // Taken out while in use: it is changed in place below, and kept again only as written.
      UsageReport kept = attempt == 1 ? lastWritten.remove(key) : null;
      UsageReport report = kept != null ? kept : getOrCreate(namespace, month);
      MonthlyUsage usage = ReportTranslator.usage(report.getStatus());
      Set<String> added = new LinkedHashSet<>();
      for (UsageRecorder.Measured m : runs) {
        if (!usage.counts(m.run())) {
          usage = usage.plus(m.run(), m.used());
          added.add(m.run().uid());
        }
      }
      if (added.isEmpty()) {
        keep(key, report);
        return Set.of();
      }
      // The report was read for this attempt and is held nowhere else, so it is changed in place:
      // a copy of a month's report (up to PRUNE_AT runs) was 4 % of the operator's CPU on the
      // 15,000-workload benchmark, for an object dropped right after.
      report.setStatus(ReportTranslator.status(prune(namespace, usage), Instant.now(clock)));
      report.getStatus().budgets = budgetsOf(namespace, usage);
      try {
        keep(key, send(report, added));
        return added;
      } catch (KubernetesClientException e) {
        if (!ApiErrors.conflict(e) || attempt == ATTEMPTS) {
          throw e;
        }
      }
    }
  }

  /** The budgets that charge the report's entries; null when none does (the field stays out). */
  private List<UsageReportStatus.BudgetUse> budgetsOf(String namespace, MonthlyUsage usage) {
    Set<UsageOwner> owners = new LinkedHashSet<>();
    for (MonthlyUsage.Key k : usage.entries().keySet()) {
      owners.add(new UsageOwner(namespace, k.localQueue(), k.clusterQueue(), k.costCentre()));
    }
    List<UsageReportStatus.BudgetUse> uses = budgets.apply(owners);
    return uses.isEmpty() ? null : uses;
  }

  /**
   * One status write of {@code report}, sent once (the writing client: no retry by fabric8). A
   * write with no reply or a 5xx may have been applied, and a re-send at its resourceVersion would
   * answer 409 and be decided again as if it had not: it is read back instead ({@link ReadBack}),
   * and taken as written when the stored report, at a newer version, counts every run it {@code
   * added}. Not written, it is thrown and the recorder tries the batch again later.
   */
  private UsageReport send(UsageReport report, Set<String> added) {
    return ReadBack.write(
        client,
        report,
        r -> client.resource(r).updateStatus(),
        stored -> counts(stored, report, added));
  }

  /** Whether {@code stored} counts each run of {@code uids} as {@code written} does. */
  static boolean counts(UsageReport stored, UsageReport written, Set<String> uids) {
    Map<String, String> storedRuns = runStarts(stored);
    Map<String, String> writtenRuns = runStarts(written);
    for (String uid : uids) {
      String start = writtenRuns.get(uid);
      if (start == null || !start.equals(storedRuns.get(uid))) {
        return false;
      }
    }
    return true;
  }

  /** The counted runs' starts by workload uid. */
  private static Map<String, String> runStarts(UsageReport report) {
    Map<String, String> starts = new HashMap<>();
    if (report.getStatus() != null && report.getStatus().counted != null) {
      for (var run : report.getStatus().counted) {
        starts.put(run.uid, run.runStart);
      }
    }
    return starts;
  }

  /** Keeps {@code report} as written last, dropping the least recently used past the bound. */
  private void keep(String key, UsageReport report) {
    lastWritten.put(key, report);
    int runs = 0;
    for (UsageReport r : lastWritten.values()) {
      runs += countedRuns(r);
    }
    var eldest = lastWritten.values().iterator();
    while (runs > CACHED_RUNS && lastWritten.size() > 1) {
      runs -= countedRuns(eldest.next());
      eldest.remove();
    }
  }

  private static int countedRuns(UsageReport report) {
    return report.getStatus() == null || report.getStatus().counted == null
        ? 0
        : report.getStatus().counted.size();
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
      if (ApiErrors.conflict(e)) {
        return resource.require();
      }
      // No reply or a 5xx: created or not, the report of that month is read. Created by this
      // write or another, it is the same empty report.
      UsageReport read = ApiErrors.outcomeUnknown(e) ? resource.get() : null;
      if (read == null) {
        throw e;
      }
      return read;
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
