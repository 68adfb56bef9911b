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
 * Managed RayJobs, with their Workloads and the pods Berth labelled for them. Registered only when
 * the RayJob CRD is installed (see {@code dev.berth.operator.Integrations}).
 */
public final class RayJobReconciler extends IntegrationReconciler<RayJob>
    implements Reconciler<RayJob> {
  /** With its writes sent once through {@code writes} (see {@link IntegrationReconciler}). */
  public RayJobReconciler(
      WorkloadLifecycle<RayJob> lifecycle, SharedVersions versions, KubernetesClient writes) {
    super(RayJob.class, lifecycle, versions, writes);
  }

  @Override
  protected List<EventSource<?, RayJob>> ownEventSources(EventSourceContext<RayJob> context) {
    return RayPods.byLabel(context, RayJob.class, RayJobAdapter.POD_LABEL, "rayjob-pods");
  }
}
