package dev.berth.operator.integration.kubeflow;

import dev.berth.operator.integration.IntegrationReconciler;
import dev.berth.operator.integration.Lifecycles;
import dev.berth.operator.kube.SharedVersions;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import java.util.List;

/**
 * Managed MPIJobs, with their Workloads and their pods ({@link KubeflowJobPods}). Registered only
 * when the MPIJob CRD is installed (see {@code dev.berth.operator.Integrations}).
 */
public final class MPIJobReconciler extends IntegrationReconciler<MPIJob>
    implements Reconciler<MPIJob> {
  private static final MPIJobAdapter ADAPTER = new MPIJobAdapter();

  public MPIJobReconciler(Lifecycles lifecycles, SharedVersions versions, KubernetesClient writes) {
    super(MPIJob.class, lifecycles.of(ADAPTER), versions, writes);
  }

  @Override
  protected List<EventSource<?, MPIJob>> ownEventSources(EventSourceContext<MPIJob> context) {
    return KubeflowJobPods.eventSource(context, MPIJob.class, ADAPTER.operatorName());
  }
}
