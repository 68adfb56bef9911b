package dev.berth.bench.load;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/**
 * The moment the operator has written what a run left it to write: every finished run billed on the
 * API server (in its namespace's UsageReport and in its Workload's status.usage), none of its
 * writers' requests outstanding ({@code berth_write_pool_outstanding_writes}, which carries the
 * Workload usage records too) and no Event waiting ({@code berth_events_pending}). The operator's
 * CPU is read then, so that the figure bills the work a run causes, not only what is done by its
 * last finish.
 *
 * @param complete whether that moment came within the timeout
 * @param report what the wait found, and the API requests written in it
 */
record LastWrite(boolean complete, String report) {
  static final LastWrite NOT_AWAITED = new LastWrite(false, "");

  static final String OUTSTANDING_WRITES = "berth_write_pool_outstanding_writes";
  static final String PENDING_EVENTS = "berth_events_pending";

  /**
   * Waits up to {@code timeoutSeconds} from now (the last finish).
   *
   * @param base what was billed before the run started (a warm-up round's runs, counted out)
   * @param atFinishRequests the API server's request counts at the last finish
   */
  static LastWrite await(
      KubernetesClient admin,
      BilledRuns runner,
      OperatorMetrics operator,
      Billing base,
      ApiRequests atFinishRequests,
      long timeoutSeconds) {
    long runs = runner.finished();
    long t0 = System.nanoTime();
    Billing atFinish = Billing.now(admin, runner).minus(base);
    boolean gauges =
        operator.metric(OUTSTANDING_WRITES) >= 0 && operator.metric(PENDING_EVENTS) >= 0;
    boolean complete;
    try {
      Awaitility.await("every run billed, no write outstanding, no Event waiting")
          .atMost(Duration.ofSeconds(timeoutSeconds))
          .pollDelay(Duration.ZERO)
          .pollInterval(Duration.ofMillis(200))
          .until(
              () ->
                  Billing.now(admin, runner).minus(base).complete(runs)
                      // An operator without the gauges (an older jar from -Dberth.repo): the
                      // bill on the API server is all there is to wait for.
                      && (!gauges
                          || (operator.metric(OUTSTANDING_WRITES) == 0
                              && operator.metric(PENDING_EVENTS) == 0)));
      complete = true;
    } catch (ConditionTimeoutException e) {
      complete = false;
    }
    double waited = (System.nanoTime() - t0) / 1e9;
    Billing b = Billing.now(admin, runner).minus(base);
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
            "last write %s %.1f s after the last finish (%d runs in UsageReports, %d Workload"
                + " records%s); writes in that time:",
            complete ? "done" : "STILL NOT DONE",
            waited,
            b.reportedRuns(),
            b.workloadRecords(),
            gauges
                ? String.format(
                    Locale.ROOT,
                    ", %.0f writes outstanding, %.0f Events waiting",
                    operator.metric(OUTSTANDING_WRITES),
                    operator.metric(PENDING_EVENTS))
                : "; this operator has no " + PENDING_EVENTS + ": its Events not waited for"));
    long writes = 0;
    for (var e : after.entrySet()) {
      String verb = e.getKey().substring(0, e.getKey().indexOf(' '));
      if (e.getValue() > 0 && List.of("POST", "PUT", "PATCH").contains(verb)) {
        out.append(String.format(Locale.ROOT, " %s %d,", e.getKey(), e.getValue()));
        writes += e.getValue();
      }
    }
    out.append(String.format(Locale.ROOT, " %d in all%n", writes));
    return new LastWrite(complete, out.toString());
  }
}
