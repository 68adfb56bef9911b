package dev.berth.operator;

import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.vertx.VertxHttpClientFactory;

/**
 * The one way the operator builds a Kubernetes client. Its jar carries two HTTP client factories
 * (Vert.x, fabric8's default, and the JDK one that local mode's embedded API server brings), and
 * with both on the classpath fabric8 picks one at random on each start: the operator names it.
 */
public final class Clients {
  private Clients() {}

  public static KubernetesClientBuilder builder() {
    return new KubernetesClientBuilder().withHttpClientFactory(new VertxHttpClientFactory());
  }
}
