package dev.berth.operator.visibility;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.webhook.server.AsyncHttpsServer.Reply;
import dev.berth.webhook.tls.CertificateAuthority;
import dev.berth.webhook.tls.ServingKeyManager;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The HTTPS port (visibility API, dashboard) under many callers at once: what made the webhooks
 * leave the JDK's {@code HttpsServer}, whose four handler threads also did the TLS handshakes, so a
 * few clients that stall mid-handshake, or requests waiting on the API server's reviews, stopped
 * everyone else.
 */
class SecureEndpointsTest {
  private static final Duration DAY = Duration.ofDays(1);
  private static final int CLIENTS = 60;
  private static final CertificateAuthority CA =
      CertificateAuthority.generate("https-port-ca", DAY);
  private static ServingKeyManager keys;
  private SecureEndpoints endpoints;
  private final List<Socket> stalled = new ArrayList<>();

  @BeforeAll
  static void certificates() throws Exception {
    keys = new ServingKeyManager(CA.issue(List.of("localhost"), List.of("127.0.0.1"), DAY));
  }

  @AfterEach
  void stop() throws Exception {
    for (Socket s : stalled) {
      s.close();
    }
    if (endpoints != null) {
      endpoints.close();
    }
  }

  private int start(String prefix, dev.berth.webhook.server.AsyncHttpsServer.Handler handler)
      throws Exception {
    endpoints = new SecureEndpoints("127.0.0.1", 0, keys).route(prefix, handler).start();
    return endpoints.port();
  }

  /**
   * HTTP/1.1: every request in flight at once has a TCP connection and TLS handshake of its own, as
   * separate users have (HTTP/2 would share one); one client, so the test's own side costs a
   * connection each, not a client with its threads each.
   */
  private static final HttpClient HTTP11 =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .sslContext(CA.trustingClientContext())
          .connectTimeout(Duration.ofSeconds(30))
          .build();

  private static CompletableFuture<HttpResponse<String>> get(int port, String path) {
    return HTTP11.sendAsync(
        HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + path))
            .header("Authorization", "Bearer t")
            .timeout(Duration.ofSeconds(30))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static Reply text(int code, String body) {
    return Responses.send(code, "text/plain", Map.of(), body.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void sixtyClientsAtOnceAreAnsweredWhileOthersStallMidHandshake() throws Exception {
    int port =
        start("/visibility/v1/", r -> text(200, r.path() + " " + r.header().get("authorization")));
    // Eight clients send the first bytes of a TLS record and nothing more. The JDK's server read
    // their handshakes on its four handler threads, without a timeout: nobody else was served.
    for (int i = 0; i < 8; i++) {
      Socket s = new Socket("127.0.0.1", port);
      OutputStream out = s.getOutputStream();
      out.write(new byte[] {0x16, 0x03, 0x01, 0x02, 0x00, 0x01});
      out.flush();
      stalled.add(s);
    }
    CountDownLatch go = new CountDownLatch(1);
    List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
    for (int i = 0; i < CLIENTS; i++) {
      String path = "/visibility/v1/clusterqueues/cq-" + i + "/pendingworkloads";
      answers.add(
          CompletableFuture.runAsync(
                  () -> {
                    try {
                      go.await();
                    } catch (InterruptedException e) {
                      Thread.currentThread().interrupt();
                    }
                  })
              .thenCompose(v -> get(port, path)));
    }
    go.countDown();
    for (int i = 0; i < CLIENTS; i++) {
      HttpResponse<String> answer = answers.get(i).get(30, TimeUnit.SECONDS);
      assertThat(answer.statusCode()).isEqualTo(200);
      assertThat(answer.body())
          .isEqualTo("/visibility/v1/clusterqueues/cq-" + i + "/pendingworkloads Bearer t");
      assertThat(answer.headers().firstValue("Cache-Control")).hasValue("no-store");
    }
  }

  @Test
  void requestsWaitingOnTheApiServerDoNotHoldUpTheRest() throws Exception {
    // Each handler waits until eight are in at once, as requests waiting on TokenReviews are: four
    // threads (the JDK server's) never get there.
    int together = 8;
    CountDownLatch inside = new CountDownLatch(together);
    int port =
        start(
            "/dashboard/",
            r -> {
              inside.countDown();
              try {
                return inside.await(20, TimeUnit.SECONDS)
                    ? text(200, "ok")
                    : text(504, "only " + (together - inside.getCount()) + " at once");
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return text(500, "interrupted");
              }
            });
    List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
    for (int i = 0; i < together; i++) {
      answers.add(get(port, "/dashboard/api/v1/state"));
    }
    for (CompletableFuture<HttpResponse<String>> a : answers) {
      HttpResponse<String> answer = a.get(30, TimeUnit.SECONDS);
      assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
    }
  }

  @Test
  void routesServeGetUnderTheirPrefixOnly() throws Exception {
    int port = start("/dashboard/", r -> text(200, r.path()));
    assertThat(get(port, "/dashboard/dashboard.js").get(30, TimeUnit.SECONDS).body())
        .isEqualTo("/dashboard/dashboard.js");
    assertThat(get(port, "/dashboard").get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(404);
    assertThat(get(port, "/visibility/v1/x").get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(404);
    HttpResponse<String> post =
        HttpClient.newBuilder()
            .sslContext(CA.trustingClientContext())
            .build()
            .send(
                HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + "/dashboard/"))
                    .POST(HttpRequest.BodyPublishers.ofString("{}"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(post.statusCode()).isEqualTo(405);
  }
}
