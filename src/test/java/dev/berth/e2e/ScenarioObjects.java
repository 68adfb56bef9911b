package dev.berth.e2e;

import dev.berth.api.v1beta1.ClusterQueue;
import dev.berth.api.v1beta1.LocalQueue;
import dev.berth.api.v1beta1.ResourceFlavor;
import dev.berth.api.v1beta1.ResourceQuota;
import dev.berth.testing.ClusterQueues;
import dev.berth.testing.Jobs;
import dev.berth.testing.LocalQueues;
import dev.berth.testing.Quota;
import dev.berth.testing.ResourceFlavors;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import java.util.Map;

/**
 * The short forms scenarios use most, over the shared builders of {@code dev.berth.testing}; for
 * anything else use the builders themselves.
 */
final class ScenarioObjects {
  private ScenarioObjects() {}

  static ResourceFlavor flavor(String name, Map<String, String> nodeLabels) {
    return ResourceFlavors.named(name).nodeLabels(nodeLabels).build();
  }

  /** A ClusterQueue with one resource group covering one resource on one flavor. */
  static ClusterQueue clusterQueue(String name, String flavor, String resource, String nominal) {
    return ClusterQueues.named(name).flavor(flavor, Quota.quota(resource, nominal)).build();
  }

  static ResourceQuota quota(ClusterQueue cq) {
    return cq.getSpec().resourceGroups.get(0).flavors.get(0).resources.get(0);
  }

  static LocalQueue localQueue(String namespace, String name, String clusterQueue) {
    return LocalQueues.named(name).in(namespace).clusterQueue(clusterQueue).build();
  }

  /** A suspended Job of {@code pods} pods, each requesting {@code cpu}, in queue {@code queue}. */
  static Job job(String namespace, String name, String queue, int pods, String cpu) {
    return Jobs.named(name)
        .in(namespace)
        .queue(queue)
        .parallelism(pods)
        .request("cpu", cpu)
        .build();
  }
}
