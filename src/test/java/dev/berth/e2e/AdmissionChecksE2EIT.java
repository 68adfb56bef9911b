package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.berth.api.v1beta1.AdmissionCheck;
import dev.berth.api.v1beta1.AdmissionCheckSpec;
import dev.berth.api.v1beta1.AdmissionChecksStrategy;
import dev.berth.api.v1beta1.ClusterQueue;
import dev.berth.api.v1beta1.Condition;
import dev.berth.api.v1beta1.FlavorQuotas;
import dev.berth.api.v1beta1.ResourceGroup;
import dev.berth.api.v1beta1.ResourceQuota;
import dev.berth.api.v1beta1.Workload;
import dev.berth.api.v1beta1.WorkloadStatus.AdmissionCheckState;
import dev.berth.engine.checks.RequeueBackoff;
import dev.berth.operator.BerthOperator;
import dev.berth.operator.WaitForPodsReady;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Admission checks on a real API server: quota reserved first, the Job started only once every
 * applicable check is Ready, Retry and Rejected as a check's controller writes them. An API server
 * of its own, with an operator whose requeuing backoff is one second (Kueue's default is a minute);
 * {@link CheckControllerStandIn} plays the external controllers.
 */
class AdmissionChecksE2EIT {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static TestApiServer.Cluster cluster;
  private static BerthOperator operator;
  private static KubernetesClient client;

  @BeforeAll
  static void setUp() {
    cluster = TestApiServer.dedicated();
    client = cluster.client();
    operator =
        RunningOperator.startNew(
            cluster.kubeconfig(),
            WaitForPodsReady.DEFAULT.withBackoff(new RequeueBackoff(1, 2, null)));
    client
        .resource(ScenarioObjects.flavor("ac-on-demand", Map.of("capacity", "on-demand")))
        .create();
    client.resource(ScenarioObjects.flavor("ac-spot", Map.of("capacity", "spot"))).create();
  }

  @AfterAll
  static void tearDown() {
    if (operator != null) {
      operator.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  private static void check(String name, String controller) {
    AdmissionCheck ac = new AdmissionCheck();
    ac.getMetadata().setName(name);
    ac.setSpec(new AdmissionCheckSpec(controller, null));
    client.resource(ac).create();
  }

  /** A ClusterQueue over cpu: 2 on demand, then 8 on spot; checks by name and flavors. */
  private static void clusterQueue(String name, Map<String, List<String>> checks) {
    ClusterQueue cq = ScenarioObjects.clusterQueue(name, "ac-on-demand", "cpu", "2");
    cq.getSpec().resourceGroups =
        List.of(
            new ResourceGroup(
                List.of("cpu"),
                List.of(
                    new FlavorQuotas("ac-on-demand", List.of(new ResourceQuota("cpu", "2"))),
                    new FlavorQuotas("ac-spot", List.of(new ResourceQuota("cpu", "8"))))));
    cq.getSpec().admissionChecksStrategy = new AdmissionChecksStrategy();
    cq.getSpec().admissionChecksStrategy.admissionChecks =
        checks.entrySet().stream()
            .map(
                e -> {
                  var rule = new AdmissionChecksStrategy.AdmissionCheckRule();
                  rule.name = e.getKey();
                  rule.onFlavors = e.getValue().isEmpty() ? null : e.getValue();
                  return rule;
                })
            .toList();
    client.resource(cq).create();
  }

  private static Scenario scenario(String ns, String cq) {
    Scenario s = new Scenario(client, ns);
    client.resource(ScenarioObjects.localQueue(ns, "main", cq)).create();
    return s;
  }

  private static Optional<Condition> condition(Workload wl, String type) {
    return wl.getStatus() == null || wl.getStatus().conditions == null
        ? Optional.empty()
        : wl.getStatus().conditions.stream().filter(c -> c.type.equals(type)).findFirst();
  }

  private static boolean is(Workload wl, String type, String status) {
    return condition(wl, type).map(c -> c.status.equals(status)).orElse(false);
  }

  private static List<String> checkNames(Workload wl) {
    return wl.getStatus().admissionChecks.stream().map(c -> c.name).toList();
  }

  private static Workload awaitWorkload(
      Scenario s, String job, java.util.function.Predicate<Workload> until) {
    return await()
        .atMost(WAIT)
        .until(() -> s.workload(job).orElse(null), wl -> wl != null && until.test(wl));
  }

  @Test
  void theJobStartsOnlyOnceEveryCheckForItsFlavorIsReady() throws Exception {
    check("budget", "example.com/budget");
    check("capacity", "example.com/capacity");
    clusterQueue(
        "ac-cq",
        new java.util.LinkedHashMap<>(Map.of("capacity", List.of("ac-spot"))) {
          {
            put("budget", List.of());
          }
        });
    Scenario s = scenario("ac-team", "ac-cq");
    s.submit(ScenarioObjects.job("ac-team", "small", "main", 1, "2"));
    s.submit(ScenarioObjects.job("ac-team", "big", "main", 1, "4"));

    Workload small =
        awaitWorkload(
            s, "small", wl -> is(wl, "QuotaReserved", "True") && is(wl, "Admitted", "False"));
    assertThat(small.getStatus().admission.podSetAssignments.get(0).flavors)
        .containsEntry("cpu", "ac-on-demand");
    assertThat(checkNames(small)).containsExactly("budget");
    assertThat(small.getStatus().admissionChecks.get(0).state).isEqualTo("Pending");
    assertThat(condition(small, "Admitted").orElseThrow().reason)
        .isEqualTo("WaitingForAdmissionChecks");
    // No controller has answered: the workload holds its quota and says why, never admitted.
    assertThat(condition(small, "Admitted").orElseThrow().message)
        .contains("budget (Pending; its controller example.com/budget has not marked it Active)");
    Workload big = awaitWorkload(s, "big", wl -> is(wl, "QuotaReserved", "True"));
    assertThat(big.getStatus().admission.podSetAssignments.get(0).flavors)
        .containsEntry("cpu", "ac-spot");
    assertThat(checkNames(big)).containsExactly("capacity", "budget");
    assertThat(s.staysSuspended("small")).isTrue();
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(metrics())
                    .contains(
                        "berth_admission_check_waiting_workloads{check=\"budget\","
                            + "cluster_queue=\"ac-cq\"} 2.0")
                    .contains(
                        "berth_admission_check_waiting_workloads{check=\"capacity\","
                            + "cluster_queue=\"ac-cq\"} 1.0")
                    .contains("berth_admission_check_oldest_wait_seconds{check=\"budget\""));
    // Both hold quota, neither is admitted: reserved counts and holds them, admitted does not.
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(metrics())
                    .contains("berth_quota_reserved_workloads_total{cluster_queue=\"ac-cq\"} 2.0")
                    .contains(
                        "berth_quota_reserved_wait_time_seconds_count{cluster_queue=\"ac-cq\"} 2")
                    .doesNotContain("berth_admitted_workloads_total{cluster_queue=\"ac-cq\"}")
                    .doesNotContain(
                        "berth_admission_wait_time_seconds_count{cluster_queue=\"ac-cq\"}")
                    .contains("berth_reserving_active_workloads{cluster_queue=\"ac-cq\"} 2.0")
                    .contains("berth_admitted_active_workloads{cluster_queue=\"ac-cq\"} 0.0")
                    .contains(
                        "berth_local_queue_admitted_active_workloads{local_queue=\"main\","
                            + "namespace=\"ac-team\"} 0.0")
                    .contains(usage("reservation", "ac-on-demand", 2))
                    .contains(usage("reservation", "ac-spot", 4))
                    .contains(usage("usage", "ac-on-demand", 0))
                    .contains(usage("usage", "ac-spot", 0)));

    CheckControllerStandIn budget = new CheckControllerStandIn(client, "budget");
    budget.markActive();
    awaitWorkload(
        s,
        "small",
        wl ->
            condition(wl, "Admitted")
                .orElseThrow()
                .message
                .equals("Quota reserved; waiting for admission checks: budget (Pending)"));
    budget.setState(small, "Ready", "within the team's budget");
    await().atMost(WAIT).until(() -> s.running("small"));
    assertThat(is(s.workload("small").orElseThrow(), "Admitted", "True")).isTrue();
    assertThat(events("ac-team", "Admitted"))
        .anyMatch(m -> m.contains("once its admission checks were Ready"));
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(metrics())
                    .contains("berth_admitted_workloads_total{cluster_queue=\"ac-cq\"} 1.0")
                    .contains("berth_admission_wait_time_seconds_count{cluster_queue=\"ac-cq\"} 1")
                    .contains("berth_admitted_active_workloads{cluster_queue=\"ac-cq\"} 1.0")
                    .contains(
                        "berth_local_queue_admitted_active_workloads{local_queue=\"main\","
                            + "namespace=\"ac-team\"} 1.0")
                    .contains(usage("usage", "ac-on-demand", 2))
                    .contains(usage("usage", "ac-spot", 0))
                    .contains(usage("reservation", "ac-spot", 4)));

    // The spot gang also needs its capacity: budget alone is not enough.
    budget.setState(big, "Ready", "");
    awaitWorkload(
        s,
        "big",
        wl ->
            condition(wl, "Admitted")
                .orElseThrow()
                .message
                .contains("capacity (Pending; its controller example.com/capacity"));
    assertThat(s.staysSuspended("big")).isTrue();
    CheckControllerStandIn capacity = new CheckControllerStandIn(client, "capacity");
    capacity.markActive();
    capacity.setState(big, "Ready", "capacity booked");
    await().atMost(WAIT).until(() -> s.running("big"));
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(metrics())
                    .contains(
                        "berth_admission_checks_wait_time_seconds_count{cluster_queue=\"ac-cq\"} 2")
                    .contains("berth_admitted_workloads_total{cluster_queue=\"ac-cq\"} 2.0")
                    .contains(usage("usage", "ac-spot", 4))
                    .doesNotContain("berth_admission_check_waiting_workloads{check=\"budget\""));
  }

  @Test
  void retryReleasesTheQuotaAndRequeuesAfterTheBackoff() throws Exception {
    check("retry-gate", "example.com/retry-gate");
    clusterQueue("ac-retry-cq", Map.of("retry-gate", List.of()));
    // Only the on-demand flavor's 2 cpu are usable by 2-cpu jobs once spot is taken: take it.
    Scenario s = scenario("ac-retry", "ac-retry-cq");
    s.submit(ScenarioObjects.job("ac-retry", "spot-filler", "main", 1, "8"));
    s.submit(ScenarioObjects.job("ac-retry", "first", "main", 1, "2"));
    CheckControllerStandIn gate = new CheckControllerStandIn(client, "retry-gate");
    gate.markActive();
    Workload first = awaitWorkload(s, "first", wl -> is(wl, "QuotaReserved", "True"));
    s.submit(ScenarioObjects.job("ac-retry", "second", "main", 1, "2"));
    awaitWorkload(s, "second", wl -> is(wl, "QuotaReserved", "False"));

    Instant asked = Instant.now();
    gate.setState(first, "Retry", "no capacity right now");
    // Evicted, quota released, checks reset, and held back until requeueAt.
    Workload released =
        awaitWorkload(
            s,
            "first",
            wl -> is(wl, "QuotaReserved", "False") && wl.getStatus().requeueState != null);
    assertThat(released.getStatus().admission).isNull();
    assertThat(released.getStatus().requeueState.count).isEqualTo(1);
    assertThat(Instant.parse(released.getStatus().requeueState.requeueAt))
        .isAfter(asked.plusMillis(800))
        .isBefore(Instant.now().plusSeconds(3));
    AdmissionCheckState reset = released.getStatus().admissionChecks.get(0);
    assertThat(reset.state).isEqualTo("Pending");
    assertThat(reset.message).contains("the quota was released (AdmissionCheck)");
    assertThat(condition(released, "Requeued").orElseThrow().message)
        .contains("not reconsidered before " + released.getStatus().requeueState.requeueAt);
    assertThat(events("ac-retry", "Evicted"))
        .anyMatch(
            m -> m.contains("AdmissionCheck retry-gate asked for a retry: no capacity right now"));
    // The quota it gave back went to the next in line.
    Workload second = awaitWorkload(s, "second", wl -> is(wl, "QuotaReserved", "True"));
    gate.setState(second, "Ready", "");
    await().atMost(WAIT).until(() -> s.running("second"));

    // Once second finishes, first gets its quota again and the checks run anew.
    Kubelet.complete(client, s.job("second"));
    Workload again = awaitWorkload(s, "first", wl -> is(wl, "QuotaReserved", "True"));
    assertThat(again.getStatus().admissionChecks.get(0).state).isEqualTo("Pending");
    assertThat(s.running("first")).isFalse();
    gate.setState(again, "Ready", "");
    await().atMost(WAIT).until(() -> s.running("first"));
    assertThat(metrics())
        .contains(
            "berth_workload_requeues_total{cluster_queue=\"ac-retry-cq\","
                + "reason=\"AdmissionCheck\"} 1.0")
        .contains(
            "berth_evicted_workloads_total{cluster_queue=\"ac-retry-cq\","
                + "reason=\"AdmissionCheck\"} 1.0");
  }

  @Test
  void rejectedDeactivatesTheWorkloadWithTheCheckAsReason() {
    check("reject-gate", "example.com/reject-gate");
    clusterQueue("ac-reject-cq", Map.of("reject-gate", List.of()));
    Scenario s = scenario("ac-reject", "ac-reject-cq");
    s.submit(ScenarioObjects.job("ac-reject", "doomed", "main", 1, "2"));
    Workload wl = awaitWorkload(s, "doomed", w -> is(w, "QuotaReserved", "True"));

    // The schema refuses a state outside the four, naming the field.
    CheckControllerStandIn gate = new CheckControllerStandIn(client, "reject-gate");
    assertThatThrownBy(() -> gate.setState(wl, "Done", ""))
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("status.admissionChecks[0].state");

    gate.setState(wl, "Rejected", "over the team's GPU budget");
    Workload gone = awaitWorkload(s, "doomed", w -> is(w, "QuotaReserved", "False"));
    assertThat(gone.getSpec().active).isFalse();
    assertThat(gone.getStatus().admission).isNull();
    assertThat(condition(gone, "QuotaReserved").orElseThrow().message)
        .contains("AdmissionCheck reject-gate rejected the workload: over the team's GPU budget");
    assertThat(condition(gone, "Requeued")).isEmpty();
    assertThat(s.running("doomed")).isFalse();
    assertThat(events("ac-reject", "Rejected")).anyMatch(m -> m.contains("deactivated"));
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              var status = s.clusterQueue("ac-reject-cq").getStatus();
              assertThat(status)
                  .as("the ClusterQueue's status (written at a bounded rate)")
                  .isNotNull();
              assertThat(status.reservingWorkloads).isZero();
            });
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(metrics())
                    .contains(
                        "berth_evicted_workloads_total{cluster_queue=\"ac-reject-cq\","
                            + "reason=\"AdmissionCheck\"} 1.0"));
  }

  @Test
  void anAdmissionCheckWithABadControllerNameIsRefusedWithItsFieldPath() {
    AdmissionCheck ac = new AdmissionCheck();
    ac.getMetadata().setName("bad");
    ac.setSpec(
        new AdmissionCheckSpec(
            "x".repeat(254), new AdmissionCheckSpec.Parameters("example.com", "lowercase", "cfg")));
    assertThatThrownBy(() -> client.resource(ac).create())
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("spec.controllerName")
        .hasMessageContaining("spec.parameters.kind");
  }

  private static List<String> events(String ns, String reason) {
    return client.v1().events().inNamespace(ns).list().getItems().stream()
        .filter(e -> reason.equals(e.getReason()))
        .map(e -> e.getMessage())
        .toList();
  }

  /** A resource_reservation or resource_usage line of ac-cq's cpu on a flavor. */
  private static String usage(String gauge, String flavor, int cpu) {
    return "berth_cluster_queue_resource_"
        + gauge
        + "{cluster_queue=\"ac-cq\",cohort=\"\",flavor=\""
        + flavor
        + "\",resource=\"cpu\"} "
        + cpu
        + ".0";
  }

  private static String metrics() throws Exception {
    var request =
        java.net.http.HttpRequest.newBuilder(
                java.net.URI.create("http://127.0.0.1:" + operator.metricsPort() + "/metrics"))
            .build();
    return java.net.http.HttpClient.newHttpClient()
        .send(request, java.net.http.HttpResponse.BodyHandlers.ofString())
        .body();
  }
}
