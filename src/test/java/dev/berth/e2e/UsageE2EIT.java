package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.api.v1beta1.ClusterQueue;
import dev.berth.api.v1beta1.ClusterQueuePreemption;
import dev.berth.api.v1beta1.Condition;
import dev.berth.api.v1beta1.UsageReport;
import dev.berth.api.v1beta1.UsageReportStatus;
import dev.berth.api.v1beta1.Workload;
import dev.berth.api.v1beta1.WorkloadPriorityClass;
import dev.berth.api.v1beta1.WorkloadUsage;
import dev.berth.engine.usage.UsageTotals;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.micrometer.core.instrument.FunctionCounter;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The usage ledger on a real API server, for a scripted life with a preemption and an operator
 * restart: "sweep" (8 GPUs, low priority) runs, is preempted by "urgent" (8 GPUs, high), runs again
 * once urgent finished, the operator restarts halfway through its second run, and it finishes.
 * Every bill in status.usage and in the namespace's monthly UsageReport is checked against the runs
 * the test observed itself ({@link ObservedRuns}: its own watch and clock, within {@link
 * #TOLERANCE} a run), the reports exactly against the Workloads' records, and each record's run
 * start against the stored condition time; a second restart with a run counted in the report but
 * missing from its Workload (the crash window between the two writes) counts nothing twice; and the
 * report still bills the runs after the Jobs and Workloads are deleted.
 */
class UsageE2EIT {
  private static final String GPU = "nvidia.com/gpu";
  private static final Duration RUN = Duration.ofSeconds(2);

  /**
   * How far a run's billed length may be from the one the test observed: each boundary reaches the
   * test's watch a little after the operator wrote it (milliseconds on an idle machine; this bound
   * allows for a loaded one), and a length is off by at most the larger of its two delays.
   */
  private static final long TOLERANCE = 1_000;

  private ObservedRuns observed;

  @AfterEach
  void stopWatching() {
    if (observed != null) {
      observed.close();
    }
  }

  @Test
  void runsAreBilledExactlyAcrossAPreemptionAndARestart() throws Exception {
    Scenario s = new Scenario("usage");
    Namespaces.ensure(s.client, s.namespace, Map.of("berth.dev/cost-centre", "cc-ml"));
    priorityClass(s, "usage-low", 10);
    priorityClass(s, "usage-high", 1000);
    s.client.resource(ScenarioObjects.flavor("usage-gpu", Map.of())).create();
    ClusterQueue cq = ScenarioObjects.clusterQueue("usage-cq", "usage-gpu", GPU, "8");
    cq.getSpec().preemption = new ClusterQueuePreemption();
    cq.getSpec().preemption.withinClusterQueue =
        ClusterQueuePreemption.WithinClusterQueue.LowerPriority;
    s.client.resource(cq).create();
    s.client.resource(ScenarioObjects.localQueue(s.namespace, "lq", "usage-cq")).create();
    observed = new ObservedRuns(s.client, s.namespace);

    s.submit(gpuJob(s, "sweep", "usage-low"));
    s.awaitRunning("sweep");
    long start1 = time(s, "sweep", "QuotaReserved", "True");
    runFor(start1);
    s.submit(gpuJob(s, "urgent", "usage-high"));
    s.awaitRunning("urgent");
    long end1 = time(s, "sweep", "QuotaReserved", "False");

    WorkloadUsage first = awaitUsage(s, "sweep", 1);
    assertThat(instant(first.lastRunStart)).isEqualTo(start1);
    assertThat(instant(first.lastRunEnd)).isEqualTo(end1);
    assertBilled(first, 8, observedRuns("sweep", 1));
    assertThat(s.condition("sweep", "Preempted")).isPresent();

    long urgentStart = time(s, "urgent", "QuotaReserved", "True");
    runFor(urgentStart);
    Kubelet.complete(s.client, s.job("urgent"));
    WorkloadUsage urgent = awaitUsage(s, "urgent", 1);
    assertBilled(urgent, 8, observedRuns("urgent", 1));

    s.awaitRunning("sweep");
    long start2 = time(s, "sweep", "QuotaReserved", "True");
    runFor(start2);
    RunningOperator.restartShared(() -> {});
    runFor(System.currentTimeMillis());
    Kubelet.complete(s.client, s.job("sweep"));
    WorkloadUsage total = awaitUsage(s, "sweep", 2);
    List<ObservedRuns.Run> sweepRuns = observedRuns("sweep", 2);

    assertThat(instant(total.lastRunStart)).isEqualTo(start2);
    assertBilled(total, 8, sweepRuns);
    assertThat(total.resources)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.podSet).isEqualTo("main");
              assertThat(e.flavor).isEqualTo("usage-gpu");
              assertThat(e.requested).isEqualTo("8");
            });

    // The restarted operator's counter holds what it saw of run 2: from its start to the end.
    FunctionCounter counter =
        RunningOperator.shared()
            .registry()
            .find("berth_local_queue_resource_seconds_total")
            .tags(
                "namespace",
                s.namespace,
                "local_queue",
                "lq",
                "cost_centre",
                "cc-ml",
                "flavor",
                "usage-gpu",
                "resource",
                GPU)
            .functionCounter();
    assertThat(counter).isNotNull();
    assertThat(counter.count())
        .isPositive()
        .isLessThanOrEqualTo(8 * (sweepRuns.get(1).millis() + TOLERANCE) / 1000.0);

    // The monthly reports hold the three runs once each (sweep twice, urgent once), the restart
    // and the retried writes notwithstanding: exactly what the Workloads' records bill.
    BigDecimal gpuSeconds = gpuSeconds(total).add(gpuSeconds(urgent));
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              List<UsageReport> reports = reports(s);
              assertThat(reports)
                  .allSatisfy(
                      r ->
                          assertThat(r.getMetadata().getName())
                              .isEqualTo("usage-" + r.getSpec().month));
              assertThat(reports.stream().mapToInt(r -> r.getStatus().runs).sum()).isEqualTo(3);
              assertThat(
                      reports.stream()
                          .flatMap(r -> r.getStatus().entries.stream())
                          .map(e -> new BigDecimal(e.resourceSeconds))
                          .reduce(BigDecimal.ZERO, BigDecimal::add))
                  .isEqualByComparingTo(gpuSeconds);
            });
    UsageReportStatus.Entry entry = reports(s).get(0).getStatus().entries.get(0);
    assertThat(
            List.of(
                entry.localQueue,
                entry.clusterQueue,
                entry.costCentre,
                entry.flavor,
                entry.resource))
        .containsExactly("lq", "usage-cq", "cc-ml", "usage-gpu", GPU);
    assertThat(entry.measuredResourceSeconds).as("no Prometheus configured").isNull();
    String sweep = s.namespace + "/" + s.workload("sweep").orElseThrow().getMetadata().getName();
    assertThat(
            reports(s).stream()
                .flatMap(r -> r.getStatus().counted.stream())
                .filter(c -> c.workload.equals(sweep))
                .map(c -> instant(c.runStart))
                .max(Long::compare))
        .as("the report knows sweep's last run is counted")
        .contains(start2);
    String csv = "\ncc-ml,usage-gpu,nvidia.com/gpu," + UsageTotals.text(gpuSeconds) + ",";
    assertThat(get("/usage?by=cost-centre&from=2000-01-01T00:00:00Z"))
        .startsWith(
            "cost-centre,flavor,resource,resource_seconds,resource_hours,"
                + "measured_resource_seconds,used_resource_seconds,used_resource_hours,utilization,"
                + "runs\n")
        .contains(csv)
        .contains(",,,,3\n");

    // A crash after the report counted a run but before its Workload record was written: the
    // restarted operator offers urgent's run again, the report knows it, the record comes back.
    String urgentName = s.workload("urgent").orElseThrow().getMetadata().getName();
    s.client
        .resources(Workload.class)
        .inNamespace(s.namespace)
        .withName(urgentName)
        .editStatus(
            w -> {
              w.getStatus().usage = null;
              return w;
            });
    RunningOperator.restartShared(() -> {});
    assertThat(gpuSeconds(awaitUsage(s, "urgent", 1))).isEqualByComparingTo(gpuSeconds(urgent));
    assertThat(reports(s).stream().mapToInt(r -> r.getStatus().runs).sum()).isEqualTo(3);
    assertThat(
            reports(s).stream()
                .flatMap(r -> r.getStatus().entries.stream())
                .map(e -> new BigDecimal(e.resourceSeconds))
                .reduce(BigDecimal.ZERO, BigDecimal::add))
        .isEqualByComparingTo(gpuSeconds);

    // Jobs with a TTL go, their Workloads with them: the reports keep the bill.
    for (String job : List.of("sweep", "urgent")) {
      String workload = s.workload(job).orElseThrow().getMetadata().getName();
      s.client.resource(s.job(job)).withGracePeriod(0).delete();
      s.client.resources(Workload.class).inNamespace(s.namespace).withName(workload).delete();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  s.client
                          .resources(Workload.class)
                          .inNamespace(s.namespace)
                          .withName(workload)
                          .get()
                      == null);
    }
    assertThat(get("/usage?by=localqueue"))
        .contains("\nusage/lq,usage-gpu,nvidia.com/gpu," + UsageTotals.text(gpuSeconds) + ",");
    assertThat(get("/usage?by=namespace&format=json"))
        .contains(
            "{\"namespace\":\"usage\",\"flavor\":\"usage-gpu\",\"resource\":\""
                + GPU
                + "\",\"resourceSeconds\":\""
                + UsageTotals.text(gpuSeconds)
                + "\"");
    assertThat(get("/usage?from=2999-01")).doesNotContain("usage-gpu");
    assertThat(get("/usage?by=team")).startsWith("by: must be one of namespace");
    assertThat(get("/usage?from=yesterday")).startsWith("from: not a month such as 2026-12");
    assertThat(get("/usage?format=xml")).startsWith("format: must be csv or json");
  }

  private static List<UsageReport> reports(Scenario s) {
    return s.client.resources(UsageReport.class).inNamespace(s.namespace).list().getItems();
  }

  private static String get(String path) throws Exception {
    var request =
        java.net.http.HttpRequest.newBuilder(
                java.net.URI.create(
                    "http://127.0.0.1:" + RunningOperator.shared().metricsPort() + path))
            .build();
    return java.net.http.HttpClient.newHttpClient()
        .send(request, java.net.http.HttpResponse.BodyHandlers.ofString())
        .body();
  }

  /**
   * Lets a run hold its quota until it has lasted RUN since {@code sinceMs}: the scenario needs
   * runs of known length (the figures themselves are read from the stored times).
   */
  private static void runFor(long sinceMs) {
    await()
        .atMost(RUN.plusSeconds(30))
        .until(() -> System.currentTimeMillis() - sinceMs >= RUN.toMillis());
  }

  private static WorkloadUsage awaitUsage(Scenario s, String job, int runs) {
    return await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> s.workload(job).map(Workload::getStatus).map(st -> st.usage).orElse(null),
            u -> u != null && u.runs != null && u.runs == runs);
  }

  /** The runs the test saw of a Job, once it has seen {@code count}. */
  private List<ObservedRuns.Run> observedRuns(String job, int count) {
    return await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> observed.of(job), runs -> runs.size() == count);
  }

  /**
   * The record bills the runs the test observed: their length within {@link #TOLERANCE} each, and
   * {@code gpus} for every second of it.
   */
  private static void assertBilled(WorkloadUsage usage, int gpus, List<ObservedRuns.Run> runs) {
    long observedMillis = runs.stream().mapToLong(ObservedRuns.Run::millis).sum();
    BigDecimal tolerance = seconds(TOLERANCE * runs.size());
    BigDecimal occupied = new BigDecimal(usage.occupiedSeconds);
    assertThat(occupied)
        .as("occupied seconds against the %s ms the test observed", observedMillis)
        .isBetween(
            seconds(observedMillis).subtract(tolerance), seconds(observedMillis).add(tolerance));
    assertThat(usage.runs).isEqualTo(runs.size());
    assertThat(usage.resources)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.resource).isEqualTo(GPU);
              assertThat(new BigDecimal(e.resourceSeconds))
                  .isEqualByComparingTo(occupied.multiply(BigDecimal.valueOf(gpus)));
            });
  }

  private static BigDecimal gpuSeconds(WorkloadUsage usage) {
    return new BigDecimal(usage.resources.get(0).resourceSeconds);
  }

  /** The condition's transition time once it has the status, in epoch ms (as the ledger reads). */
  private static long time(Scenario s, String job, String type, String status) {
    Condition c =
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () -> s.condition(job, type).orElse(null),
                x -> x != null && status.equals(x.status));
    return instant(c.lastTransitionTime);
  }

  private static long instant(String time) {
    return Instant.parse(time).toEpochMilli();
  }

  private static BigDecimal seconds(long millis) {
    return BigDecimal.valueOf(millis).movePointLeft(3);
  }

  private static void priorityClass(Scenario s, String name, int value) {
    WorkloadPriorityClass wpc = new WorkloadPriorityClass();
    wpc.getMetadata().setName(name);
    wpc.setValue(value);
    s.client.resource(wpc).serverSideApply();
  }

  private static Job gpuJob(Scenario s, String name, String priorityClass) {
    Job job = ScenarioObjects.job(s.namespace, name, "lq", 1, "1");
    job.getMetadata().getLabels().put("berth.dev/priority-class", priorityClass);
    var resources = job.getSpec().getTemplate().getSpec().getContainers().get(0).getResources();
    resources.setRequests(Map.of(GPU, new Quantity("8")));
    resources.setLimits(Map.of(GPU, new Quantity("8")));
    return job;
  }
}
