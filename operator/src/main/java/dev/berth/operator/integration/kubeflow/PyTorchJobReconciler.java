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
 * Managed PyTorchJobs, with their Workloads and their pods ({@link KubeflowJobPods}). Registered
 * only when the PyTorchJob CRD is installed (see {@code dev.berth.operator.Integrations}).
 */
public final class PyTorchJobReconciler extends IntegrationReconciler<PyTorchJob>
    implements Reconciler<PyTorchJob> {
  private static final PyTorchJobAdapter ADAPTER = new PyTorchJobAdapter();

  public PyTorchJobReconciler(
      Lifecycles lifecycles, SharedVersions versions, KubernetesClient writes) {
    super(PyTorchJob.class, lifecycles.of(ADAPTER), versions, writes);
  }

  @Override
  protected List<EventSource<?, PyTorchJob>> ownEventSources(
      EventSourceContext<PyTorchJob> context) {
    return KubeflowJobPods.eventSource(context, PyTorchJob.class, ADAPTER.operatorName());
  }
}
