package dev.berth.operator;

import dev.berth.operator.informers.InternedStrings;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.vertx.VertxHttpClientFactory;
import java.time.Duration;

/**
 * The one way the operator builds a Kubernetes client. Its jar carries two HTTP client factories
 * (Vert.x, fabric8's default, and the JDK one that local mode's embedded API server brings), and
 * with both on the classpath fabric8 picks one at random on each start: the operator names it. Its
 * WebSocket watches get two deadlines, so that no informer waits for ever on a watch that was lost:
 * one on the upgrade ({@link WatchDeadlines}) and one on silence once it is open ({@link
 * WatchSilence}, {@value WatchSilence#VARIABLE}). What it reads is decoded with its strings
 * interned ({@link InternedStrings}): the informers' caches hold one copy of each repeated value.
 * fabric8's token refresh runs at most once a minute ({@link TokenRefreshBound}).
 */
public final class Clients {
  private Clients() {}

  /** With the silence bound of {@value WatchSilence#VARIABLE}. */
  public static KubernetesClientBuilder builder() {
    return builder(WatchDeadlines.HANDSHAKE, WatchSilence.from(System.getenv()).bound());
  }

  /** With another watch handshake deadline (tests, which cannot wait that long). */
  public static KubernetesClientBuilder builder(Duration handshake) {
    return builder(handshake, WatchSilence.DEFAULT);
  }

  /** With other watch deadlines: the upgrade's, and silence's once open (zero: none). */
  public static KubernetesClientBuilder builder(Duration handshake, Duration silence) {
    WatchDeadlines deadlines = new WatchDeadlines(handshake);
    return new KubernetesClientBuilder()
        .withKubernetesSerialization(InternedStrings.serialization())
        .withHttpClientFactory(
            TokenRefreshBound.factory(
                SilenceGuardedHttpClient.factory(
                    new VertxHttpClientFactory(), new WatchSilence(silence))))
        .withHttpClientBuilderConsumer(
            http -> http.addOrReplaceInterceptor(WatchDeadlines.NAME, deadlines));
  }
}
