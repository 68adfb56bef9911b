package dev.berth.operator.admission;

import dev.berth.api.v1beta1.ClusterQueue;
import dev.berth.api.v1beta1.Cohort;
import dev.berth.api.v1beta1.LocalQueue;
import dev.berth.api.v1beta1.ResourceFlavor;
import dev.berth.api.v1beta1.Workload;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Comparator;
import java.util.List;

/**
 * Rebuilds the loop's state from one consistent read of the API server. Admitted workloads are fed
 * before pending ones, so the first cycle sees every reservation a previous leader made.
 */
public final class Bootstrap {
  private final KubernetesClient client;

  public Bootstrap(KubernetesClient client) {
    this.client = client;
  }

  public void load(ClusterState state) {
    client.resources(dev.berth.api.v1beta1.Topology.class).list().getItems().forEach(state::topology);
    client.nodes().list().getItems().forEach(state::node);
    // Bound pods before workloads: the first cycle must not place onto capacity already in use.
    client.pods().inAnyNamespace().list().getItems().forEach(state::pod);
    client.resources(ResourceFlavor.class).list().getItems().forEach(state::flavor);
    client.resources(Cohort.class).list().getItems().forEach(state::cohort);
    client.resources(ClusterQueue.class).list().getItems().forEach(state::clusterQueue);
    for (Namespace ns : client.namespaces().list().getItems()) {
      state.namespace(ns.getMetadata().getName(), ns.getMetadata().getLabels());
    }
    client.resources(LocalQueue.class).inAnyNamespace().list().getItems().forEach(state::localQueue);
    List<Workload> workloads =
        client.resources(Workload.class).inAnyNamespace().list().getItems().stream()
            .sorted(
                Comparator.comparing((Workload w) -> !WorkloadConditions.hasQuotaReserved(w)))
            .toList();
    workloads.forEach(state::workload);
  }
}
