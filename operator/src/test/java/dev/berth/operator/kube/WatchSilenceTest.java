package dev.berth.operator.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A watch answered and then silent is opened again from its last resourceVersion; one that hears
 * bookmarks is left alone. The API server is a stand-in ({@link SilentApiServer}): no real
 * kube-apiserver can be told to keep a watch open and send nothing, which is what the operator met
 * after a kube-apiserver restart behind a relay that kept its side of the connection (the fault
 * suite's second stall). Without {@link WatchSilence} the informer hears nothing until fabric8
 * rotates the watch, 5 to 10 minutes later.
 */
class WatchSilenceTest {
  private static final Duration SILENCE = Duration.ofSeconds(3);
  private final Vertx vertx = Vertx.vertx();

  @AfterEach
  void stop() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  void aWatchAnsweredAndThenSilentIsOpenedAgainFromItsLastResourceVersion() throws Exception {
    SilentApiServer api = new SilentApiServer(false);
    Set<String> seen = ConcurrentHashMap.newKeySet();
    try (KubernetesClient client =
        ConfigMapApiStandIn.client(api.server, Duration.ofSeconds(10), SILENCE)) {
      SharedIndexInformer<ConfigMap> informer = ConfigMapApiStandIn.inform(client, seen);
      try {
        // The first watch delivers "first" and goes silent; the second one delivers "second".
        await().atMost(Duration.ofSeconds(30)).until(() -> seen.contains("second"));
      } finally {
        informer.stop();
      }
    }
    assertThat(seen).contains("first");
    assertThat(api.watches)
        .as("the silent watch, then one from the resourceVersion its event carried")
        .startsWith("1", "2");
  }

  @Test
  void aWatchThatHearsBookmarksIsLeftOpen() throws Exception {
    SilentApiServer api = new SilentApiServer(true);
    Set<String> seen = ConcurrentHashMap.newKeySet();
    try (KubernetesClient client =
        ConfigMapApiStandIn.client(api.server, Duration.ofSeconds(10), SILENCE)) {
      SharedIndexInformer<ConfigMap> informer = ConfigMapApiStandIn.inform(client, seen);
      try {
        await().atMost(Duration.ofSeconds(30)).until(() -> seen.contains("first"));
        // Three bounds of bookmarks, four a bound: no event, but never silent that long.
        await().atMost(Duration.ofSeconds(60)).until(() -> api.bookmarks.get() > 12);
      } finally {
        informer.stop();
      }
    }
    assertThat(api.watches).as("only the first watch").hasSize(1);
  }

  @Test
  void theBoundIsReadFromTheEnvironmentAndBadValuesNameTheVariable() {
    String variable = "BERTH_WATCH_SILENCE_SECONDS";
    assertThat(bound(Map.of())).isEqualTo(Duration.ofSeconds(120));
    assertThat(bound(Map.of(variable, "45"))).isEqualTo(Duration.ofSeconds(45));
    assertThat(bound(Map.of(variable, "0"))).isZero();
    assertThatThrownBy(() -> bound(Map.of(variable, "2m")))
        .hasMessageContaining("BERTH_WATCH_SILENCE_SECONDS")
        .hasMessageContaining("\"2m\"");
    assertThatThrownBy(() -> bound(Map.of(variable, "-1")))
        .hasMessageContaining("BERTH_WATCH_SILENCE_SECONDS");
  }

  /** clientConnection.watchSilence as the configuration's loader reads it from the environment. */
  private static Duration bound(Map<String, String> env) {
    return dev.berth.operator.config.ConfigurationLoader.fromEnvironment(env)
        .clientConnection()
        .watchSilence();
  }

  /**
   * A stand-in for kube-apiserver: lists no ConfigMap (resourceVersion 1); its first WebSocket
   * watch delivers ConfigMap "first" (resourceVersion 2) and then nothing, neither closing nor
   * answering a close (a dead peer behind a relay that kept its side), or, with {@code bookmarks},
   * a BOOKMARK four times a bound; a later watch delivers "second".
   */
  private final class SilentApiServer {
    final List<String> watches = new CopyOnWriteArrayList<>();
    final AtomicInteger bookmarks = new AtomicInteger();
    private final boolean sendBookmarks;
    final HttpServer server;

    SilentApiServer(boolean sendBookmarks) throws Exception {
      this.sendBookmarks = sendBookmarks;
      this.server = ConfigMapApiStandIn.listen(vertx, this::watch);
    }

    private void watch(HttpServerRequest request) {
      watches.add(request.getParam("resourceVersion"));
      boolean first = watches.size() == 1;
      request
          .toWebSocket()
          .onSuccess(
              ws -> {
                if (!first) {
                  ws.writeTextMessage(ConfigMapApiStandIn.added("second", 3));
                  return;
                }
                // A dead peer: the close frame the client sends is never answered.
                ws.frameHandler(frame -> {});
                ws.writeTextMessage(ConfigMapApiStandIn.added("first", 2));
                if (sendBookmarks) {
                  vertx.setPeriodic(
                      SILENCE.toMillis() / 4,
                      t -> {
                        bookmarks.incrementAndGet();
                        ws.writeTextMessage(
                            """
                            {"type":"BOOKMARK","object":{"apiVersion":"v1","kind":"ConfigMap",\
                            "metadata":{"resourceVersion":"2"}}}""");
                      });
                }
              });
    }
  }
}
