package dev.berth.e2e.faults;

import static org.awaitility.Awaitility.await;

import dev.berth.e2e.TestApiServer;
import dev.berth.operator.Clients;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * An informer that reaches kube-apiserver through the {@link FaultyApiProxy} (no faults injected)
 * hears events after each restart of the API server behind it ({@link ApiServerReplica}). Its
 * client has no silence deadline ({@code WatchSilence} off), so what is tested is the relay: after
 * a restart the API server answers a watch from an old resourceVersion with a 410 and closes at
 * once; a proxy that drops those while it upgrades the operator's side leaves the watch open and
 * silent. Before {@link WebSocketRelay} the second restart of this test already did (the event
 * never came within 60 s), as the fault suite's leader did after its kube-apiserver restart.
 */
class WatchAcrossRestartIT {
  private static final int RESTARTS = 4;

  @Test
  void anInformerThroughTheProxyHearsEventsAfterEachApiServerRestart() throws Exception {
    try (TestApiServer.Cluster cluster = TestApiServer.dedicated()) {
      KubernetesClient admin = cluster.client();
      admin
          .namespaces()
          .resource(new NamespaceBuilder().withNewMetadata().withName("w").endMetadata().build())
          .serverSideApply();
      Path dir = Files.createTempDirectory("berth-watch-restart");
      try (ApiServerReplica api = ApiServerReplica.of(cluster.kubeconfig(), dir);
          FaultyApiProxy proxy = new FaultyApiProxy(api.kubeconfig(), new FaultSchedule(1, 0));
          KubernetesClient operator =
              Clients.builder(Duration.ofSeconds(30), Duration.ZERO)
                  .withConfig(Config.fromKubeconfig(proxy.kubeconfig()))
                  .build()) {
        Set<String> seen = ConcurrentHashMap.newKeySet();
        operator.configMaps().inNamespace("w").inform(handler(seen), 0);
        admin.resource(configMap("before")).create();
        await().atMost(Duration.ofSeconds(30)).until(() -> seen.contains("before"));
        for (int round = 0; round < RESTARTS; round++) {
          api.restart();
          String name = "after-" + round;
          admin.resource(configMap(name)).create();
          // A relisting informer hears it within seconds; a silent watch never does.
          await().atMost(Duration.ofSeconds(60)).until(() -> seen.contains(name));
        }
      }
    }
  }

  private static ConfigMap configMap(String name) {
    return new ConfigMapBuilder()
        .withNewMetadata()
        .withNamespace("w")
        .withName(name)
        .endMetadata()
        .build();
  }

  private static ResourceEventHandler<ConfigMap> handler(Set<String> seen) {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(ConfigMap c) {
        seen.add(c.getMetadata().getName());
      }

      @Override
      public void onUpdate(ConfigMap a, ConfigMap b) {}

      @Override
      public void onDelete(ConfigMap c, boolean unknown) {}
    };
  }
}
