package dev.berth.webhook.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.berth.webhook.tls.CertificateAuthority;
import dev.berth.webhook.tls.ServingKeyManager;
import dev.berth.webhook.validation.QueueScope;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class WebhookServerTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final Duration DAY = Duration.ofDays(1);
  private static CertificateAuthority ca;
  private static ServingKeyManager keys;
  private static WebhookServer server;
  private static HttpClient client;
  private static String base;

  @BeforeAll
  static void start() throws Exception {
    ca = CertificateAuthority.generate("test-ca", DAY);
    keys = new ServingKeyManager(ca.issue(List.of("localhost"), List.of("127.0.0.1"), DAY));
    Map<String, AdmissionHandler> routes =
        new HashMap<>(BerthWebhooks.routes("operator", QueueScope.NONE));
    routes.put(
        "/boom",
        call -> {
          throw new IllegalStateException("bug");
        });
    server = new WebhookServer(routes, keys, 4);
    int port = server.start("127.0.0.1", 0);
    base = "https://127.0.0.1:" + port;
    client = HttpsClients.trusting(ca);
  }

  @AfterAll
  static void stop() {
    server.stop();
  }

  static String review(String operation, String object, String oldObject, String user) {
    return """
        {"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{
          "uid":"u-1","kind":{"group":"%s","version":"v1","kind":"%s"},
          "operation":"%s","namespace":"team","name":"x","userInfo":{"username":"%s"},
          "object":%s,"oldObject":%s}}
        """
        .formatted(groupOf(object), kindOf(object), operation, user, object, oldObject);
  }

  private static String groupOf(String object) {
    String apiVersion = read(object).path("apiVersion").asText();
    return apiVersion.contains("/") ? apiVersion.substring(0, apiVersion.indexOf('/')) : "";
  }

  private static String kindOf(String object) {
    return read(object).path("kind").asText();
  }

  private static JsonNode read(String json) {
    try {
      return MAPPER.readTree(json);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static HttpResponse<String> post(String path, String body) throws Exception {
    return client.send(
        HttpRequest.newBuilder(URI.create(base + path))
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void validClusterQueueIsAllowed() throws Exception {
    String cq =
        "{\"apiVersion\":\"berth.dev/v1beta1\",\"kind\":\"ClusterQueue\","
            + "\"metadata\":{\"name\":\"x\"},\"spec\":{\"namespaceSelector\":{}}}";
    HttpResponse<String> response =
        post(WebhookPaths.VALIDATE_CLUSTER_QUEUE, review("CREATE", cq, "null", "alice"));
    assertThat(response.statusCode()).isEqualTo(200);
    JsonNode answer = read(response.body()).path("response");
    assertThat(answer.path("uid").asText()).isEqualTo("u-1");
    assertThat(answer.path("allowed").asBoolean()).isTrue();
  }

  @Test
  void invalidClusterQueueIsRefusedWithTheFieldPath() throws Exception {
    String cq =
        "{\"apiVersion\":\"berth.dev/v1beta1\",\"kind\":\"ClusterQueue\","
            + "\"metadata\":{\"name\":\"x\"},\"spec\":{\"cohortName\":\"Bad_Name\"}}";
    JsonNode answer =
        read(post(WebhookPaths.VALIDATE_CLUSTER_QUEUE, review("CREATE", cq, "null", "alice"))
                .body())
            .path("response");
    assertThat(answer.path("allowed").asBoolean()).isFalse();
    assertThat(answer.at("/status/code").asInt()).isEqualTo(422);
    assertThat(answer.at("/status/message").asText())
        .startsWith("ClusterQueue.berth.dev \"x\" is invalid: spec.cohortName: Invalid value");
    assertThat(answer.at("/status/details/causes/0/field").asText()).isEqualTo("spec.cohortName");
  }

  @Test
  void managedJobIsSuspendedByPatch() throws Exception {
    String job =
        "{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"x\","
            + "\"labels\":{\"berth.dev/queue-name\":\"q\"}},\"spec\":{\"template\":{}}}";
    JsonNode answer =
        read(post(WebhookPaths.MUTATE_JOB, review("CREATE", job, "null", "alice")).body())
            .path("response");
    assertThat(answer.path("allowed").asBoolean()).isTrue();
    assertThat(answer.path("patchType").asText()).isEqualTo("JSONPatch");
    String patch =
        new String(
            Base64.getDecoder().decode(answer.path("patch").asText()), StandardCharsets.UTF_8);
    assertThat(read(patch))
        .hasSize(2)
        .anySatisfy(
            op -> {
              assertThat(op.path("op").asText()).isEqualTo("add");
              assertThat(op.path("path").asText()).isEqualTo("/spec/suspend");
            })
        .anySatisfy(
            op -> {
              // The submission time, for workloads created in the same second (issue 16).
              assertThat(op.path("path").asText()).isEqualTo("/metadata/annotations");
              assertThat(op.at("/value/berth.dev~1submitted-at").asText()).endsWith("Z");
            });
  }

  @Test
  void garbageIsABadRequest() throws Exception {
    for (String body :
        List.of(
            "",
            "{",
            "[]",
            "{\"kind\":\"AdmissionReview\"}",
            "{\"kind\":\"AdmissionReview\",\"request\":{}}",
            "null",
            "\u0000\u0001")) {
      assertThat(post(WebhookPaths.VALIDATE_WORKLOAD, body).statusCode()).as(body).isEqualTo(400);
    }
  }

  @Test
  void unknownPathAndWrongMethod() throws Exception {
    assertThat(post("/nope", "{}").statusCode()).isEqualTo(404);
    // A refusal must not be lost because the client was still sending a large body.
    assertThat(post("/nope", "x".repeat(500_000)).statusCode()).isEqualTo(404);
    assertThat(
            client
                .send(
                    HttpRequest.newBuilder(URI.create(base + WebhookPaths.VALIDATE_JOB))
                        .GET()
                        .build(),
                    HttpResponse.BodyHandlers.ofString())
                .statusCode())
        .isEqualTo(405);
    assertThat(
            client
                .send(
                    HttpRequest.newBuilder(URI.create(base + WebhookPaths.HEALTH)).GET().build(),
                    HttpResponse.BodyHandlers.ofString())
                .statusCode())
        .isEqualTo(200);
  }

  @Test
  void aFailingHandlerRefusesWithAMessage() throws Exception {
    HttpResponse<String> response =
        post("/boom", review("CREATE", "{\"kind\":\"Job\"}", "null", "a"));
    assertThat(response.statusCode()).isEqualTo(200);
    JsonNode answer = read(response.body()).path("response");
    assertThat(answer.path("allowed").asBoolean()).isFalse();
    assertThat(answer.at("/status/message").asText()).contains("IllegalStateException");
  }

  @Test
  void objectOfTheWrongShapeIsInvalidNotAnError() throws Exception {
    String wl =
        "{\"apiVersion\":\"berth.dev/v1beta1\",\"kind\":\"Workload\","
            + "\"metadata\":{\"name\":\"x\"},\"spec\":{\"podSets\":[{\"count\":\"many\"}]}}";
    JsonNode answer =
        read(post(WebhookPaths.VALIDATE_WORKLOAD, review("CREATE", wl, "null", "a")).body())
            .path("response");
    assertThat(answer.path("allowed").asBoolean()).isFalse();
    assertThat(answer.at("/status/details/causes/0/field").asText())
        .isEqualTo("spec.podSets[0].count");
  }

  @Test
  void swappedCertificateIsServedToNewConnections() throws Exception {
    CertificateAuthority next = CertificateAuthority.generate("next-ca", DAY);
    keys.update(next.issue(List.of(), List.of("127.0.0.1"), DAY));
    try {
      HttpClient fresh = HttpsClients.trusting(next);
      assertThat(
              fresh
                  .send(
                      HttpRequest.newBuilder(URI.create(base + WebhookPaths.HEALTH)).build(),
                      HttpResponse.BodyHandlers.ofString())
                  .statusCode())
          .isEqualTo(200);
      HttpClient old = HttpsClients.trusting(ca);
      assertThatThrownBy(
              () ->
                  old.send(
                      HttpRequest.newBuilder(URI.create(base + WebhookPaths.HEALTH)).build(),
                      HttpResponse.BodyHandlers.ofString()))
          .isInstanceOf(SSLHandshakeException.class);
    } finally {
      keys.update(ca.issue(List.of("localhost"), List.of("127.0.0.1"), DAY));
    }
  }
}
