package dev.berth.operator.integration.ray;

import dev.berth.operator.integration.IntegrationReconciler;
import dev.berth.operator.integration.WorkloadLifecycle;
import dev.berth.operator.kube.SharedVersions;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import java.util.List;

/**
 * Managed RayClusters, with their Workloads and their pods. Registered only when the RayCluster CRD
 * is installed (see {@code dev.berth.operator.Integrations}).
 */
public final class RayClusterReconciler extends IntegrationReconciler<RayCluster>
    implements Reconciler<RayCluster> {
  /** With its writes sent once through {@code writes} (see {@link IntegrationReconciler}). */
  public RayClusterReconciler(
      WorkloadLifecycle<RayCluster> lifecycle, SharedVersions versions, KubernetesClient writes) {
    super(RayCluster.class, lifecycle, versions, writes);
  }

  @Override
  protected List<EventSource<?, RayCluster>> ownEventSources(
      EventSourceContext<RayCluster> context) {
    return RayPods.byLabel(
        context, RayCluster.class, RayClusterAdapter.CLUSTER_LABEL, "raycluster-pods");
  }
}
