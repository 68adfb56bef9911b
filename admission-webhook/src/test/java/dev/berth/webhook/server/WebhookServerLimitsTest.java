package dev.berth.webhook.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.webhook.tls.CertificateAuthority;
import dev.berth.webhook.tls.ServingKeyManager;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The server's bounds: a full queue answers 503, stop drains, a dribbling client is cut off. */
class WebhookServerLimitsTest {
  private static final Duration DAY = Duration.ofDays(1);
  private static CertificateAuthority ca;
  private static ServingKeyManager keys;
  private static HttpClient client;
  private final CountDownLatch release = new CountDownLatch(1);
  private final CountDownLatch entered = new CountDownLatch(1);
  private WebhookServer server;

  @BeforeAll
  static void certificates() throws Exception {
    ca = CertificateAuthority.generate("limits-ca", DAY);
    keys = new ServingKeyManager(ca.issue(List.of("localhost"), List.of("127.0.0.1"), DAY));
    client = HttpsClients.trusting(ca);
  }

  @AfterEach
  void stop() {
    release.countDown();
    if (server != null) {
      server.stop();
    }
  }

  /** A route whose handler holds its thread until the test releases it. */
  private int start(AsyncHttpsServer.Limits limits) throws Exception {
    Map<String, AdmissionHandler> routes =
        Map.of(
            "/block",
            call -> {
              entered.countDown();
              try {
                release.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              return AdmissionAnswer.ALLOW;
            });
    server = new WebhookServer(routes, keys, limits);
    return server.start("127.0.0.1", 0);
  }

  private static String review() {
    return """
        {"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{
          "uid":"u-1","kind":{"group":"batch","version":"v1","kind":"Job"},
          "operation":"CREATE","namespace":"team","name":"x","userInfo":{"username":"a"},
          "object":{"kind":"Job"},"oldObject":null}}
        """;
  }

  private static CompletableFuture<HttpResponse<String>> post(int port, String path) {
    return client.sendAsync(
        HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + path))
            .POST(HttpRequest.BodyPublishers.ofString(review()))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static HttpResponse<String> health(int port) throws Exception {
    // A fresh client: a connection of its own, as a kubelet's probe has.
    return HttpsClients.trusting(ca)
        .send(
            HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + WebhookPaths.HEALTH))
                .build(),
            HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void aFullQueueIsRefusedWith503AtOnce() throws Exception {
    int port =
        start(
            new AsyncHttpsServer.Limits(1, 1, Duration.ofSeconds(30), Duration.ofSeconds(5), true));
    CompletableFuture<HttpResponse<String>> running = post(port, "/block");
    assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
    CompletableFuture<HttpResponse<String>> queued = post(port, "/block");
    // The queue holds one: with the handler busy and one waiting, the next is refused.
    org.awaitility.Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> server.inFlight() == 2);
    HttpResponse<String> refused = post(port, "/block").get(10, TimeUnit.SECONDS);
    assertThat(refused.statusCode()).isEqualTo(503);
    assertThat(refused.headers().firstValue("Retry-After")).hasValue("1");
    assertThat(refused.body()).contains("saturated");
    release.countDown();
    assertThat(running.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    assertThat(queued.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    assertThat(running.get().body()).contains("\"allowed\":true");
  }

  @Test
  void stopAnswersRequestsInFlightThenCloses() throws Exception {
    int port =
        start(
            new AsyncHttpsServer.Limits(
                2, 8, Duration.ofSeconds(30), Duration.ofSeconds(20), true));
    CompletableFuture<HttpResponse<String>> inFlight = post(port, "/block");
    assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
    CompletableFuture<Void> stopping = CompletableFuture.runAsync(server::stop);
    // While draining, the server still listens but says it is going away.
    org.awaitility.Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> health(port).statusCode() == 503);
    assertThat(post(port, "/block").get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(503);
    assertThat(stopping).isNotDone();
    release.countDown();
    assertThat(inFlight.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    stopping.get(20, TimeUnit.SECONDS);
    assertThatThrownBy(() -> health(port)).isInstanceOf(ConnectException.class);
    server = null;
  }

  @Test
  void aClientThatDribblesItsBodyIsCutOff() throws Exception {
    int port =
        start(
            new AsyncHttpsServer.Limits(1, 1, Duration.ofSeconds(1), Duration.ofSeconds(5), true));
    try (SSLSocket socket =
        (SSLSocket) ca.trustingClientContext().getSocketFactory().createSocket("127.0.0.1", port)) {
      socket.setSoTimeout(15_000);
      OutputStream out = socket.getOutputStream();
      out.write(
          ("POST /block HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{\"a\"")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = socket.getInputStream();
      // Closed by the server after its 1 s request timeout, long before our 15 s read timeout.
      long started = System.nanoTime();
      assertThat(in.read()).isEqualTo(-1);
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
    }
  }

  @Test
  void http2IsOfferedAndHttp11StillServed() throws Exception {
    int port = start(AsyncHttpsServer.Limits.withThreads(2));
    release.countDown();
    HttpClient h2 =
        HttpClient.newBuilder()
            .sslContext(ca.trustingClientContext())
            .version(HttpClient.Version.HTTP_2)
            .build();
    HttpResponse<String> viaH2 =
        h2.send(
            HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + "/block"))
                .POST(HttpRequest.BodyPublishers.ofString(review()))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(viaH2.version()).isEqualTo(HttpClient.Version.HTTP_2);
    assertThat(viaH2.body()).contains("\"allowed\":true");
    HttpClient h1 =
        HttpClient.newBuilder()
            .sslContext(ca.trustingClientContext())
            .version(HttpClient.Version.HTTP_1_1)
            .build();
    HttpResponse<String> viaH1 =
        h1.send(
            HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + "/block"))
                .POST(HttpRequest.BodyPublishers.ofString(review()))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(viaH1.version()).isEqualTo(HttpClient.Version.HTTP_1_1);
    assertThat(viaH1.statusCode()).isEqualTo(200);
  }

  @Test
  void anOversizedBodyIsRefusedAfterItIsRead() throws Exception {
    int port = start(AsyncHttpsServer.Limits.withThreads(2));
    String huge = "x".repeat(WebhookServer.MAX_BODY_BYTES + 10);
    HttpResponse<String> response =
        client.send(
            HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + "/block"))
                .POST(HttpRequest.BodyPublishers.ofString(huge))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(413);
  }
}
