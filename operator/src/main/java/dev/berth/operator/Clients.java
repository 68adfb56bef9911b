package dev.berth.operator;

import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.vertx.VertxHttpClientFactory;
import java.time.Duration;

/**
 * The one way the operator builds a Kubernetes client. Its jar carries two HTTP client factories
 * (Vert.x, fabric8's default, and the JDK one that local mode's embedded API server brings), and
 * with both on the classpath fabric8 picks one at random on each start: the operator names it. Its
 * WebSocket watches get a handshake deadline ({@link WatchDeadlines}), so that no informer waits
 * for ever on a watch that was lost.
 */
public final class Clients {
  private Clients() {}

  public static KubernetesClientBuilder builder() {
    return builder(WatchDeadlines.HANDSHAKE);
  }

  /** With another watch handshake deadline (tests, which cannot wait that long). */
  public static KubernetesClientBuilder builder(Duration handshake) {
    WatchDeadlines deadlines = new WatchDeadlines(handshake);
    return new KubernetesClientBuilder()
        .withHttpClientFactory(new VertxHttpClientFactory())
        .withHttpClientBuilderConsumer(
            http -> http.addOrReplaceInterceptor(WatchDeadlines.NAME, deadlines));
  }
}
