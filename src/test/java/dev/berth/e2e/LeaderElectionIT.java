package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.operator.BerthOperator;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Two replicas on one cluster: one holds the Lease and admits; the other waits, and takes over when
 * the leader stops. On a server of its own, since the shared operator runs without leader election.
 * Both replicas exit on a lost Lease, as the chart configures them.
 */
class LeaderElectionIT {

  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private static int probe(BerthOperator replica, String path) throws Exception {
    return HTTP.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + replica.metricsPort() + path))
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
      BerthOperator first = RunningOperator.startExitingOnLostLease(cluster.kubeconfig());
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> holder(client) != null && first.isLeading());
      String firstHolder = holder(client);
      BerthOperator second = RunningOperator.startExitingOnLostLease(cluster.kubeconfig());
      boolean firstClosed = false;
      try {
        client.resource(ScenarioObjects.flavor("le-flavor", Map.of())).create();
        client.resource(ScenarioObjects.clusterQueue("le-cq", "le-flavor", "cpu", "2")).create();
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

        // A rollout stops the leader (SIGTERM runs close()). Losing the Lease while stopping must
        // neither exit the process from inside the stop (the old deadlock) nor hang.
        long stopped = System.nanoTime();
        firstClosed = true;
        CompletableFuture.runAsync(first::close).get(30, TimeUnit.SECONDS);
        await().atMost(Duration.ofSeconds(60)).until(second::isLeading);
        Duration failover = Duration.ofNanos(System.nanoTime() - stopped);
        assertThat(holder(client)).isNotEqualTo(firstHolder);

        client.resource(ScenarioObjects.job("team", "after-failover", "lq", 1, "1")).create();
        await().atMost(Duration.ofSeconds(30)).until(() -> running(client, "after-failover"));
        assertThat(second.isAdmitting()).isTrue();
        assertThat(probe(second, "/readyz")).isEqualTo(200);
        assertThat(probe(second, "/healthz")).isEqualTo(200);
        System.out.println("LeaderElectionIT: failover took " + failover.toMillis() + " ms");
      } finally {
        second.close();
        if (!firstClosed) {
          first.close();
        }
      }
    }
  }
}
