package dev.berth.bench.load;

import dev.berth.api.v1beta1.UsageReport;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Where the bill stands: runs counted in the namespaces' UsageReports, and Workloads whose own
 * status.usage records their run. The operator writes the report first and lets the Workload
 * records give way to admissions, so at the last finish the second may lag; the benchmark waits for
 * both and counts the writes they took after the run, so that no billing write is left out of the
 * figures.
 */
record Billing(long reportedRuns, long workloadRecords) {
  static Billing now(KubernetesClient admin, LoadRunner runner) {
    long runs =
        admin.resources(UsageReport.class).inAnyNamespace().list().getItems().stream()
            .mapToLong(
                r -> r.getStatus() == null || r.getStatus().runs == null ? 0 : r.getStatus().runs)
            .sum();
    return new Billing(runs, runner.withUsageRecord());
  }

  boolean complete(long workloads) {
    return reportedRuns >= workloads && workloadRecords >= workloads;
  }

  /** This, without what was billed before {@code base} (a warm-up round's runs). */
  Billing minus(Billing base) {
    return new Billing(reportedRuns - base.reportedRuns, workloadRecords - base.workloadRecords);
  }

  /**
   * Waits up to {@code timeoutSeconds} for every finished run to be billed in both records, and
   * describes what that took after the run.
   *
   * @param base what was billed before the run started (counted out)
   */
  static String awaitComplete(
      KubernetesClient admin,
      LoadRunner runner,
      long runs,
      Billing base,
      ApiRequests atFinishRequests,
      long timeoutSeconds)
      throws InterruptedException {
    long t0 = System.nanoTime();
    Billing atFinish = now(admin, runner).minus(base);
    Billing b = atFinish;
    while (!b.complete(runs) && System.nanoTime() - t0 < timeoutSeconds * 1_000_000_000L) {
      Thread.sleep(1000);
      b = now(admin, runner).minus(base);
    }
    double waited = (System.nanoTime() - t0) / 1e9;
    Map<String, Long> after = ApiRequests.scrape(admin).since(atFinishRequests);
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            Locale.ROOT,
            "billing at the last finish: %d of %d runs in UsageReports, %d Workload records%n",
            atFinish.reportedRuns(),
            runs,
            atFinish.workloadRecords()));
    out.append(
        String.format(
            Locale.ROOT,
            "billing %s %.1f s after the last finish (%d runs in UsageReports, %d Workload"
                + " records); writes in that time:",
            b.complete(runs) ? "complete" : "STILL INCOMPLETE",
            waited,
            b.reportedRuns(),
            b.workloadRecords()));
    long writes = 0;
    for (var e : after.entrySet()) {
      String verb = e.getKey().substring(0, e.getKey().indexOf(' '));
      if (e.getValue() > 0 && List.of("POST", "PUT", "PATCH").contains(verb)) {
        out.append(String.format(Locale.ROOT, " %s %d,", e.getKey(), e.getValue()));
        writes += e.getValue();
      }
    }
    out.append(String.format(Locale.ROOT, " %d in all%n", writes));
    return out.toString();
  }
}
