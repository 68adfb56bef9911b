package dev.berth.bench.load;

import dev.berth.api.v1beta1.UsageReport;
import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * Where the bill stands: runs counted in the namespaces' UsageReports, and Workloads whose own
 * status.usage records their run. The operator writes the report first and lets the Workload
 * records give way to admissions, so at the last finish the second may lag; the benchmark waits for
 * both ({@link LastWrite}) and counts the writes they took after the run, so that no billing write
 * is left out of the figures.
 */
record Billing(long reportedRuns, long workloadRecords) {
  static Billing now(KubernetesClient admin, BilledRuns runner) {
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
}
