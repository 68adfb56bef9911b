package dev.berth.e2e;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Map;

/** Test namespaces, created once and labelled so ClusterQueue namespaceSelectors can match. */
final class Namespaces {
  private Namespaces() {}

  static void ensure(KubernetesClient client, String name) {
    ensure(client, name, Map.of());
  }

  static void ensure(KubernetesClient client, String name, Map<String, String> labels) {
    client
        .namespaces()
        .resource(
            new NamespaceBuilder()
                .withNewMetadata()
                .withName(name)
                .withLabels(labels)
                .endMetadata()
                .build())
        .serverSideApply();
  }
}
