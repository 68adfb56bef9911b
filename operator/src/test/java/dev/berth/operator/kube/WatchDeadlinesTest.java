package dev.berth.operator.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.StandardHttpRequest;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import java.net.URI;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An informer whose watch is lost hears events again. The API server here is a stand-in ({@link
 * LosingApiServer}): no real kube-apiserver can be told to leave one watch unanswered, which is
 * what the fault suite saw after a kube-apiserver restart (the leader's informers went silent for
 * good, and admission with them). Without {@link WatchDeadlines} the informer waits on the first
 * watch for ever.
 */
class WatchDeadlinesTest {
  private static final Duration HANDSHAKE = Duration.ofSeconds(1);
  private final Vertx vertx = Vertx.vertx();

  @AfterEach
  void stop() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  void aWebSocketWatchWhoseUpgradeIsNeverAnsweredIsOpenedAgain() throws Exception {
    LosingApiServer api = new LosingApiServer();
    assertThat(informerSees(api)).isEqualTo("seen");
    assertThat(api.watches.get()).as("the lost watch, then the one answered").isEqualTo(2);
  }

  @Test
  void onlyWatchesGetTheDeadlines() {
    assertThat(WatchDeadlines.isWatch(request("/api/v1/pods?watch=true&resourceVersion=1")))
        .isTrue();
    assertThat(WatchDeadlines.isWatch(request("/api/v1/pods?resourceVersion=1&watch=1"))).isTrue();
    assertThat(WatchDeadlines.isWatch(request("/api/v1/pods?limit=500"))).isFalse();
    assertThat(WatchDeadlines.isWatch(request("/api/v1/namespaces/watch=true"))).isFalse();
  }

  private static HttpRequest request(String path) {
    return new StandardHttpRequest.Builder().uri(URI.create("https://api:6443" + path)).build();
  }

  /** The name of the first ConfigMap an informer on the stand-in hears of. */
  private String informerSees(LosingApiServer api) throws Exception {
    Set<String> seen = ConcurrentHashMap.newKeySet();
    try (KubernetesClient client =
        ConfigMapApiStandIn.client(api.server, HANDSHAKE, WatchSilence.DEFAULT)) {
      SharedIndexInformer<ConfigMap> informer = ConfigMapApiStandIn.inform(client, seen);
      try {
        await().atMost(Duration.ofSeconds(30)).until(() -> !seen.isEmpty());
        return seen.iterator().next();
      } finally {
        informer.stop();
      }
    }
  }

  /**
   * A stand-in for kube-apiserver that lists no ConfigMap, never answers the upgrade of the first
   * WebSocket watch, and answers the next watch (WebSocket or HTTP) with one ADDED event.
   */
  private final class LosingApiServer {
    final AtomicInteger watches = new AtomicInteger();
    final HttpServer server;

    LosingApiServer() throws Exception {
      this.server = ConfigMapApiStandIn.listen(vertx, this::watch);
    }

    private void watch(HttpServerRequest request) {
      boolean upgrade = "websocket".equalsIgnoreCase(request.getHeader("Upgrade"));
      boolean lost = watches.incrementAndGet() == 1;
      String event = ConfigMapApiStandIn.added("seen", 2);
      if (lost) {
        assertThat(upgrade).as("fabric8 opens a watch as a WebSocket first").isTrue();
        return; // the upgrade is never answered
      }
      if (upgrade) {
        request.toWebSocket().onSuccess(ws -> ws.writeTextMessage(event));
      } else { // after a failed upgrade fabric8 may fall back to an HTTP watch
        request
            .response()
            .setChunked(true)
            .putHeader("Content-Type", "application/json")
            .write(event + "\n");
      }
    }
  }
}
