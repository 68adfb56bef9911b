package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.api.v1beta1.ClusterQueue;
import dev.berth.api.v1beta1.Condition;
import dev.berth.api.v1beta1.QueueingStrategy;
import dev.berth.api.v1beta1.StopPolicy;
import dev.berth.api.v1beta1.Workload;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 16, deliverable 1: every pending Workload says why it waits, Inadmissible ones included;
 * the detail goes into an Event; finished and evicted Workloads read as such in the columns.
 */
class PendingReasonsE2EIT {
  private static KubernetesClient client;

  @BeforeAll
  static void setUp() {
    client = TestApiServer.client();
    RunningOperator.shared();
  }

  private static Condition quotaReserved(Scenario s, String job) {
    return s.condition(job, "QuotaReserved").orElse(null);
  }

  private static void awaitReason(Scenario s, String job, String reason, String messagePart) {
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              Condition c = quotaReserved(s, job);
              assertThat(c).as("QuotaReserved of " + job).isNotNull();
              assertThat(c.status).isEqualTo("False");
              assertThat(c.reason).as(c.message).isEqualTo(reason);
              assertThat(c.message).contains(messagePart).hasSizeLessThan(200).doesNotContain("\n");
            });
  }

  @Test
  void inadmissibleWorkloadsSayWhy() {
    String ns = "why-inadmissible";
    String outside = "why-outside";
    // A Scenario ensures its namespace without labels: label them afterwards.
    Scenario s = new Scenario(ns);
    Scenario o = new Scenario(outside);
    Namespaces.ensure(client, ns, Map.of("team", "why"));
    Namespaces.ensure(client, outside, Map.of("team", "other"));
    client.resource(ScenarioObjects.flavor("why-flavor", Map.of())).create();
    ClusterQueue cq = ScenarioObjects.clusterQueue("why-cq", "why-flavor", "cpu", "2");
    cq.getSpec().namespaceSelector =
        new LabelSelectorBuilder().addToMatchLabels("team", "why").build();
    cq.getSpec().queueingStrategy = QueueingStrategy.StrictFIFO;
    client.resource(cq).create();
    client.resource(ScenarioObjects.localQueue(ns, "lq", "why-cq")).create();
    client.resource(ScenarioObjects.localQueue(outside, "lq", "why-cq")).create();

    s.submit(ScenarioObjects.job(ns, "no-queue", "missing", 1, "1"));
    awaitReason(s, "no-queue", "Inadmissible", "LocalQueue " + ns + "/missing doesn't exist");

    o.submit(ScenarioObjects.job(outside, "stranger", "lq", 1, "1"));
    awaitReason(
        o,
        "stranger",
        "Inadmissible",
        "namespace " + outside + " doesn't match the namespaceSelector of ClusterQueue why-cq");

    // StrictFIFO: a head that can never fit blocks the queue; the one behind says so.
    s.submit(ScenarioObjects.job(ns, "too-big", "lq", 1, "3"));
    s.submit(ScenarioObjects.job(ns, "behind", "lq", 1, "1"));
    awaitReason(s, "too-big", "ExceedsMaxQuota", "needs cpu 3 on flavor why-flavor");
    awaitReason(s, "behind", "WaitingForQuota", "the head of StrictFIFO ClusterQueue why-cq");

    // The detail of a reason that changed goes into an Event on the Workload.
    String behind = s.workload("behind").orElseThrow().getMetadata().getName();
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () ->
                assertThat(events(ns, behind))
                    .anySatisfy(
                        e -> {
                          assertThat(e.getReason()).isEqualTo("Pending");
                          assertThat(e.getMessage()).startsWith("WaitingForQuota: waiting behind ");
                        }));

    // Held: nothing is admitted and everything pending says so.
    ClusterQueue stored = client.resources(ClusterQueue.class).withName("why-cq").get();
    stored.getSpec().stopPolicy = StopPolicy.Hold;
    stored.getSpec().queueingStrategy = QueueingStrategy.BestEffortFIFO;
    client.resource(stored).update();
    awaitReason(s, "behind", "Inadmissible", "ClusterQueue why-cq is stopped (Hold)");
    awaitReason(s, "too-big", "Inadmissible", "ClusterQueue why-cq is stopped (Hold)");
  }

  @Test
  void finishedAndEvictedWorkloadsReadAsSuchInTheWideColumns() throws Exception {
    String ns = "why-columns";
    Namespaces.ensure(client, ns);
    client.resource(ScenarioObjects.flavor("why-col-flavor", Map.of())).create();
    client
        .resource(ScenarioObjects.clusterQueue("why-col-cq", "why-col-flavor", "cpu", "2"))
        .create();
    client.resource(ScenarioObjects.localQueue(ns, "lq", "why-col-cq")).create();
    Scenario s = new Scenario(ns);
    s.submit(ScenarioObjects.job(ns, "done", "lq", 1, "1"));
    s.awaitRunning("done");
    Kubelet.complete(client, s.job("done"));
    String name = s.workload("done").orElseThrow().getMetadata().getName();
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              Map<String, Object> row = wideRow(ns, name);
              assertThat(row).containsEntry("Finished", "True").containsEntry("Reason", "Finished");
              assertThat((String) row.get("Message"))
                  .startsWith("finished (Succeeded), quota released");
            });

    // Deactivated while admitted: evicted (and counted), then not requeued.
    s.submit(ScenarioObjects.job(ns, "stopped", "lq", 1, "1"));
    s.awaitRunning("stopped");
    Workload wl = s.workload("stopped").orElseThrow();
    wl.getSpec().active = false;
    client.resource(wl).update();
    String stopped = wl.getMetadata().getName();
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              Map<String, Object> row = wideRow(ns, stopped);
              assertThat(row.get("Reason")).isIn("Evicted", "Deactivated");
            });
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () ->
                assertThat(RunningOperator.shared().registry().scrape())
                    .contains(
                        "berth_evicted_workloads_total{cluster_queue=\"why-col-cq\",reason=\"Deactivated\"} 1.0"));
  }

  private static List<Event> events(String ns, String workload) {
    return client.v1().events().inNamespace(ns).list().getItems().stream()
        .filter(e -> workload.equals(e.getInvolvedObject().getName()))
        .toList();
  }

  /** The row `kubectl get wl -o wide` prints: the server's Table, with priority-1 columns. */
  static Map<String, Object> wideRow(String ns, String name) throws Exception {
    var http = client.getHttpClient();
    var request =
        http.newHttpRequestBuilder()
            .uri(
                client.getMasterUrl()
                    + "apis/berth.dev/v1beta1/namespaces/"
                    + ns
                    + "/workloads/"
                    + name
                    + "?includeObject=None")
            .header("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
            .build();
    String body =
        http.sendAsync(request, String.class).get(10, java.util.concurrent.TimeUnit.SECONDS).body();
    var table = new com.fasterxml.jackson.databind.ObjectMapper().readTree(body);
    Map<String, Object> row = new java.util.LinkedHashMap<>();
    var cells = table.get("rows").get(0).get("cells");
    for (int i = 0; i < table.get("columnDefinitions").size(); i++) {
      var cell = cells.get(i);
      row.put(
          table.get("columnDefinitions").get(i).get("name").asText(),
          cell.isNull() ? null : cell.asText());
    }
    return row;
  }
}
