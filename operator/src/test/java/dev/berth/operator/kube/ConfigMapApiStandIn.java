package dev.berth.operator.kube;

import dev.berth.operator.Clients;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * What the watch tests' stand-ins for kube-apiserver share (no real one can be told to lose a
 * watch): a server that lists no ConfigMap in namespace "team" (resourceVersion 1) and hands every
 * watch request to the test, the operator's client on it, and an informer noting what it hears.
 */
final class ConfigMapApiStandIn {
  private ConfigMapApiStandIn() {}

  static HttpServer listen(Vertx vertx, Handler<HttpServerRequest> watch) throws Exception {
    return vertx
        .createHttpServer()
        .requestHandler(
            request -> {
              if ("true".equals(request.getParam("watch"))) {
                watch.handle(request);
                return;
              }
              request
                  .response()
                  .putHeader("Content-Type", "application/json")
                  .end(
                      """
                      {"apiVersion":"v1","kind":"ConfigMapList","metadata":{"resourceVersion":"1"},\
                      "items":[]}""");
            })
        .listen(0, "127.0.0.1")
        .toCompletionStage()
        .toCompletableFuture()
        .get(10, TimeUnit.SECONDS);
  }

  /** The operator's client on {@code server}, with these watch deadlines; reconnects in 100 ms. */
  static KubernetesClient client(HttpServer server, Duration handshake, Duration silence) {
    Config config =
        new ConfigBuilder(Config.empty())
            .withMasterUrl("http://127.0.0.1:" + server.actualPort())
            .withWatchReconnectInterval(100)
            .build();
    return Clients.builder(handshake, silence).withConfig(config).build();
  }

  /** A started informer on the ConfigMaps of "team" that adds the name of each one it hears of. */
  static SharedIndexInformer<ConfigMap> inform(KubernetesClient client, Set<String> names) {
    SharedIndexInformer<ConfigMap> informer =
        client.configMaps().inNamespace("team").runnableInformer(0);
    informer.addEventHandler(
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(ConfigMap configMap) {
            names.add(configMap.getMetadata().getName());
          }

          @Override
          public void onUpdate(ConfigMap before, ConfigMap after) {}

          @Override
          public void onDelete(ConfigMap configMap, boolean finalStateUnknown) {}
        });
    informer.start();
    return informer;
  }

  /** A watch event: ConfigMap {@code name} in "team" added at {@code resourceVersion}. */
  static String added(String name, int resourceVersion) {
    return """
        {"type":"ADDED","object":{"apiVersion":"v1","kind":"ConfigMap","metadata":\
        {"name":"%s","namespace":"team","resourceVersion":"%d"}}}"""
        .formatted(name, resourceVersion);
  }
}
