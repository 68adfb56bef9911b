package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 16, deliverable 2: the visibility API on the operator's HTTPS port, called with real
 * ServiceAccount tokens that the API server authenticates (TokenReview) and authorises
 * (SubjectAccessReview). Alice may list Workloads in vis-a only: she sees vis-a's pending workloads
 * with their places in the whole ClusterQueue, and nothing of vis-b.
 */
class VisibilityE2EIT {
  private static final String A = "vis-a";
  private static final String B = "vis-b";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static KubernetesClient client;

  @BeforeAll
  static void setUp() {
    client = TestApiServer.client();
    RunningOperator.shared();
  }

  @Test
  void aTeamMemberSeesTheQueueInOrderButOnlyHerNamespaces() throws Exception {
    Scenario a = new Scenario(A);
    Scenario b = new Scenario(B);
    client.resource(ScenarioObjects.flavor("vis-flavor", Map.of())).create();
    client.resource(ScenarioObjects.clusterQueue("vis-cq", "vis-flavor", "cpu", "1")).create();
    client.resource(ScenarioObjects.localQueue(A, "lq", "vis-cq")).create();
    client.resource(ScenarioObjects.localQueue(B, "lq", "vis-cq")).create();
    client
        .rbac()
        .clusterRoles()
        .resource(
            new ClusterRoleBuilder()
                .withNewMetadata()
                .withName("vis-workload-reader")
                .endMetadata()
                .addNewRule()
                .withApiGroups("berth.dev")
                .withResources("workloads")
                .withVerbs("get", "list")
                .endRule()
                .build())
        .serverSideApply();
    String alice = serviceAccountToken(A, "alice");
    client
        .rbac()
        .roleBindings()
        .inNamespace(A)
        .resource(
            new RoleBindingBuilder()
                .withNewMetadata()
                .withName("alice-reads")
                .withNamespace(A)
                .endMetadata()
                .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", "vis-workload-reader")
                .addNewSubject()
                .withKind("ServiceAccount")
                .withName("alice")
                .withNamespace(A)
                .endSubject()
                .build())
        .serverSideApply();

    a.submit(ScenarioObjects.job(A, "running", "lq", 1, "1"));
    a.awaitRunning("running");
    // Without the webhook the queue orders by creation second: one second apart across both
    // namespaces (each Scenario spaces only its own submissions).
    nextSecondAfter(a.submit(ScenarioObjects.job(A, "first", "lq", 1, "1")));
    nextSecondAfter(b.submit(ScenarioObjects.job(B, "theirs", "lq", 1, "1")));
    a.submit(ScenarioObjects.job(A, "second", "lq", 1, "1"));

    String cqPath = "/visibility/v1/clusterqueues/vis-cq/pendingworkloads";
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              JsonNode body = JSON.readTree(get(cqPath, alice).body());
              List<String> rows = new ArrayList<>();
              for (JsonNode item : body.get("items")) {
                rows.add(
                    item.get("namespace").asText()
                        + " "
                        + item.get("positionInClusterQueue").asInt()
                        + " "
                        + item.get("positionInLocalQueue").asInt()
                        + " "
                        + item.get("reason").asText()
                        + " "
                        + item.at("/requests/cpu").asText());
              }
              // vis-b's workload holds position 1 and is left out of her answer.
              assertThat(rows)
                  .containsExactly(A + " 0 0 WaitingForQuota 1", A + " 2 1 WaitingForQuota 1");
              assertThat(body.get("items").get(0).get("name").asText()).startsWith("job-first");
              assertThat(body.get("items").get(0).get("message").asText())
                  .contains("needs cpu 1 on flavor vis-flavor");
            });

    HttpResponse<String> own =
        get("/visibility/v1/namespaces/" + A + "/localqueues/lq/pendingworkloads", alice);
    assertThat(own.statusCode()).isEqualTo(200);
    assertThat(JSON.readTree(own.body()).get("items")).hasSize(2);

    HttpResponse<String> theirs =
        get("/visibility/v1/namespaces/" + B + "/localqueues/lq/pendingworkloads", alice);
    assertThat(theirs.statusCode()).isEqualTo(403);
    assertThat(theirs.body()).contains("may not list workloads.berth.dev in namespace " + B);

    assertThat(get(cqPath, null).statusCode()).isEqualTo(401);
    assertThat(get(cqPath, "not-a-token").statusCode()).isEqualTo(401);
    assertThat(get("/visibility/v1/elsewhere", alice).statusCode()).isEqualTo(404);

    // Sixty callers at once, each on a TLS connection of its own, while four more stall in the
    // middle of their handshakes (the JDK server this port had stopped answering at that): each
    // gets her own answer, the reviews behind it by the real API server.
    List<java.net.Socket> stalled = new ArrayList<>();
    try {
      for (int i = 0; i < 4; i++) {
        java.net.Socket socket =
            new java.net.Socket("127.0.0.1", RunningOperator.shared().httpsPort());
        socket.getOutputStream().write(new byte[] {0x16, 0x03, 0x01, 0x02, 0x00});
        socket.getOutputStream().flush();
        stalled.add(socket);
      }
      String theirPath = "/visibility/v1/namespaces/" + B + "/localqueues/lq/pendingworkloads";
      java.net.http.HttpClient callers = TestHttps.http11Client();
      List<java.util.concurrent.CompletableFuture<HttpResponse<String>>> burst = new ArrayList<>();
      for (int i = 0; i < 60; i++) {
        HttpRequest.Builder request =
            HttpRequest.newBuilder(
                URI.create(
                    "https://127.0.0.1:"
                        + RunningOperator.shared().httpsPort()
                        + (i % 3 == 2 ? theirPath : cqPath)));
        if (i % 6 != 5) {
          request.header("Authorization", "Bearer " + alice);
        }
        burst.add(callers.sendAsync(request.build(), HttpResponse.BodyHandlers.ofString()));
      }
      for (int i = 0; i < burst.size(); i++) {
        HttpResponse<String> answer = burst.get(i).get(30, java.util.concurrent.TimeUnit.SECONDS);
        if (i % 6 == 5) {
          assertThat(answer.statusCode()).as("caller %d, no token", i).isEqualTo(401);
        } else if (i % 3 == 2) {
          assertThat(answer.statusCode()).as("caller %d, vis-b's queue", i).isEqualTo(403);
        } else {
          assertThat(answer.statusCode()).as("caller %d", i).isEqualTo(200);
          assertThat(JSON.readTree(answer.body()).get("items")).hasSize(2);
        }
      }
    } finally {
      for (java.net.Socket socket : stalled) {
        socket.close();
      }
    }
    // Bearer tokens go over TLS only: the plain-HTTP metrics port does not serve the API.
    HttpResponse<String> plain =
        java.net.http.HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(
                        URI.create(
                            "http://127.0.0.1:" + RunningOperator.shared().metricsPort() + cqPath))
                    .header("Authorization", "Bearer " + alice)
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(plain.statusCode()).isEqualTo(404);
  }

  static void nextSecondAfter(io.fabric8.kubernetes.api.model.batch.v1.Job created) {
    java.time.Instant next =
        java.time.Instant.parse(created.getMetadata().getCreationTimestamp()).plusSeconds(1);
    await().atMost(Duration.ofSeconds(3)).until(() -> java.time.Instant.now().isAfter(next));
  }

  private static String serviceAccountToken(String namespace, String name) {
    client
        .serviceAccounts()
        .inNamespace(namespace)
        .resource(
            new ServiceAccountBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(namespace)
                .endMetadata()
                .build())
        .serverSideApply();
    return client
        .serviceAccounts()
        .inNamespace(namespace)
        .withName(name)
        .tokenRequest(
            new TokenRequestBuilder().withNewSpec().withExpirationSeconds(3600L).endSpec().build())
        .getStatus()
        .getToken();
  }

  static HttpResponse<String> get(String path, String token) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(
            URI.create("https://127.0.0.1:" + RunningOperator.shared().httpsPort() + path));
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return TestHttps.client().send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
