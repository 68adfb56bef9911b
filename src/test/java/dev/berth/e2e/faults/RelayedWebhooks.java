package dev.berth.e2e.faults;

import dev.berth.webhook.ChartWebhooks;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.List;

/**
 * Berth's webhook configurations registered for the suite's operator replicas, their clientConfig a
 * URL (the {@link WebhookRelay}) instead of the chart's Service, with no caBundle: the replicas
 * make their CA and patch it in, as with the chart's default ({@code certManager.enabled=false}).
 */
final class RelayedWebhooks {
  private RelayedWebhooks() {}

  /**
   * The validating and mutating configurations as the chart renders them at its defaults ({@code
   * helm template}, {@link ChartWebhooks}), every webhook's URL {@code baseUrl} + the chart's path.
   */
  static List<HasMetadata> configurations(String baseUrl) {
    ChartWebhooks chart = ChartWebhooks.render(ChartOperatorPod.NAMESPACE).pointedAt(baseUrl);
    return List.of(chart.validating(), chart.mutating());
  }

  static void register(KubernetesClient admin, String baseUrl) {
    for (HasMetadata configuration : configurations(baseUrl)) {
      admin.resource(configuration).create();
    }
  }

  /**
   * Whether the API server calls them: Berth's validating webhook (and only it) refuses a
   * ClusterQueue that covers one resource in two groups, naming the field. Before a replica has
   * patched the caBundle in, or before the API server has read the configurations, the request
   * fails otherwise or is let through (deleted again).
   */
  static boolean enforced(KubernetesClient admin) {
    String invalid =
        """
        apiVersion: berth.dev/v1beta1
        kind: ClusterQueue
        metadata: {name: faults-webhook-probe}
        spec:
          resourceGroups:
          - coveredResources: [cpu]
            flavors: [{name: probe-a, resources: [{name: cpu, nominalQuota: 1}]}]
          - coveredResources: [cpu]
            flavors: [{name: probe-b, resources: [{name: cpu, nominalQuota: 1}]}]
        """;
    try {
      admin.resource(invalid).create();
    } catch (KubernetesClientException e) {
      return e.getMessage().contains("denied the request")
          && e.getMessage().contains("spec.resourceGroups[1].coveredResources[0]");
    }
    admin.resource(invalid).delete();
    return false;
  }
}
