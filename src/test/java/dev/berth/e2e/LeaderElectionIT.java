package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.api.v1beta1.Workload;
import dev.berth.operator.BerthOperator;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Two replicas on one cluster: one holds the Lease and admits; the other waits, and takes over when
 * the leader stops. On a server of its own, since the shared operator runs without leader election.
 * Both replicas exit on a lost Lease, as the chart configures them.
 *
 * <p>The leader's client takes {@link #EVENT_DELAY} longer for each Admitted Event it creates (an
 * interceptor in its client, standing in for a loaded API server), so that Admitted Events are
 * still waiting when the rollout stops it; it is closed after the operator, as the jar's main does.
 * Every admission must still have exactly one Admitted Event, the old leader's or the new one's.
 */
class LeaderElectionIT {
  private static final Duration EVENT_DELAY = Duration.ofMillis(400);

  /** The leader's client: its Admitted Events take {@link #EVENT_DELAY} longer to create. */
  private static KubernetesClient slowEventsClient(String kubeconfig) {
    Interceptor slowAdmittedEvents =
        new Interceptor() {
          @Override
          public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
            String body = request.bodyString();
            if ("POST".equals(request.method())
                && request.uri().getPath().endsWith("/events")
                && (body == null || body.contains("\"Admitted\""))) {
              try {
                // Latency, not a wait for a condition: this is the slow API server.
                Thread.sleep(EVENT_DELAY.toMillis());
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            }
          }
        };
    return new KubernetesClientBuilder()
        .withConfig(Config.fromKubeconfig(kubeconfig))
        .withHttpClientBuilderConsumer(
            http -> http.addOrReplaceInterceptor("slow-admitted-events", slowAdmittedEvents))
        .build();
  }

  /** Admitted Events per Workload name in "team". */
  private static Map<String, Long> admittedEvents(KubernetesClient client) {
    return client.v1().events().inNamespace("team").list().getItems().stream()
        .filter(e -> "Workload".equals(e.getInvolvedObject().getKind()))
        .filter(e -> "Admitted".equals(e.getReason()))
        .collect(
            Collectors.groupingBy(e -> e.getInvolvedObject().getName(), Collectors.counting()));
  }

  private static List<String> admittedWorkloads(KubernetesClient client) {
    return client.resources(Workload.class).inNamespace("team").list().getItems().stream()
        .filter(w -> w.getStatus() != null && w.getStatus().conditions != null)
        .filter(
            w ->
                w.getStatus().conditions.stream()
                    .anyMatch(c -> "Admitted".equals(c.type) && "True".equals(c.status)))
        .map(w -> w.getMetadata().getName())
        .toList();
  }

  private static final HttpClient HTTP = HttpClient.newHttpClient();

  /** Jobs admitted just before the leader stops. */
  private static final int BURST = 8;

  private static int probe(BerthOperator replica, String path) throws Exception {
    return HTTP.send(
            java.net.http.HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + replica.metricsPort() + path))
                .timeout(Duration.ofSeconds(5))
                .build(),
            HttpResponse.BodyHandlers.discarding())
        .statusCode();
  }

  private static String holder(KubernetesClient client) {
    Lease lease = client.leases().inNamespace("berth-system").withName("berth-leader").get();
    return lease == null ? null : lease.getSpec().getHolderIdentity();
  }

  private static boolean running(KubernetesClient client, String job) {
    return Boolean.FALSE.equals(
        client.batch().v1().jobs().inNamespace("team").withName(job).get().getSpec().getSuspend());
  }

  @Test
  void onlyTheLeaseHolderAdmitsAndTheStandbyTakesOverWhenTheLeaderStops() throws Exception {
    try (TestApiServer.Cluster cluster = TestApiServer.dedicated()) {
      var client = cluster.client();
      Namespaces.ensure(client, "berth-system");
      Namespaces.ensure(client, "team");
      KubernetesClient firstClient = slowEventsClient(cluster.kubeconfig());
      BerthOperator first = RunningOperator.startExitingOnLostLease(firstClient);
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> holder(client) != null && first.isLeading());
      String firstHolder = holder(client);
      BerthOperator second = RunningOperator.startExitingOnLostLease(cluster.kubeconfig());
      boolean firstClosed = false;
      try {
        client.resource(ScenarioObjects.flavor("le-flavor", Map.of())).create();
        client.resource(ScenarioObjects.clusterQueue("le-cq", "le-flavor", "cpu", "12")).create();
        client.resource(ScenarioObjects.localQueue("team", "lq", "le-cq")).create();
        client.resource(ScenarioObjects.job("team", "only", "lq", 1, "1")).create();
        await().atMost(Duration.ofSeconds(30)).until(() -> running(client, "only"));
        assertThat(first.isAdmitting()).as("the leader's loop rebuilt its state").isTrue();
        assertThat(second.isLeading()).isFalse();
        assertThat(second.isAdmitting()).as("the standby's loop never ran a cycle").isFalse();
        assertThat(holder(client)).isEqualTo(firstHolder);
        assertThat(probe(first, "/readyz")).isEqualTo(200);
        assertThat(probe(first, "/healthz")).isEqualTo(200);
        assertThat(probe(second, "/readyz")).as("a standby serves webhooks: ready").isEqualTo(200);

        // A burst of admissions just before the stop: their Admitted Events queue behind the slow
        // creates.
        for (int i = 0; i < BURST; i++) {
          client.resource(ScenarioObjects.job("team", "burst-" + i, "lq", 1, "1")).create();
        }
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> admittedWorkloads(client).size() == BURST + 1);
        long eventsAtStop = admittedEvents(client).values().stream().mapToLong(n -> n).sum();

        // A rollout stops the leader (SIGTERM runs close(), then main closes the client). Losing
        // the Lease while stopping must neither exit the process from inside the stop (the old
        // deadlock) nor hang.
        long stopped = System.nanoTime();
        firstClosed = true;
        CompletableFuture.runAsync(first::close).get(30, TimeUnit.SECONDS);
        firstClient.close();
        assertThat(eventsAtStop)
            .as("Admitted Events still waiting when the leader was stopped")
            .isLessThan(BURST + 1);
        Map<String, Long> afterStop = admittedEvents(client);
        assertThat(afterStop)
            .as("the stopped leader wrote every Admitted Event it held, once each")
            .containsOnlyKeys(admittedWorkloads(client))
            .allSatisfy((name, n) -> assertThat(n).as(name).isEqualTo(1L));
        await().atMost(Duration.ofSeconds(60)).until(second::isLeading);
        Duration failover = Duration.ofNanos(System.nanoTime() - stopped);
        assertThat(holder(client)).isNotEqualTo(firstHolder);

        client.resource(ScenarioObjects.job("team", "after-failover", "lq", 1, "1")).create();
        await().atMost(Duration.ofSeconds(30)).until(() -> running(client, "after-failover"));
        assertThat(second.isAdmitting()).isTrue();
        assertThat(probe(second, "/readyz")).isEqualTo(200);
        assertThat(probe(second, "/healthz")).isEqualTo(200);
        // The new leader writes the Event of its own admission and none again for the old ones.
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> admittedEvents(client).size() == BURST + 2);
        assertThat(admittedEvents(client))
            .containsOnlyKeys(admittedWorkloads(client))
            .allSatisfy((name, n) -> assertThat(n).as(name).isEqualTo(1L));
        System.out.println(
            "LeaderElectionIT: failover took "
                + failover.toMillis()
                + " ms; "
                + (BURST + 1 - eventsAtStop)
                + " Admitted Events were waiting at the stop");
      } finally {
        second.close();
        if (!firstClosed) {
          first.close();
          firstClient.close();
        }
      }
    }
  }
}
