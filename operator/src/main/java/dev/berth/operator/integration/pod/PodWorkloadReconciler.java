package dev.berth.operator.integration.pod;

import dev.berth.operator.integration.IntegrationReconciler;
import dev.berth.operator.integration.WorkloadLifecycle;
import dev.berth.operator.kube.SharedVersions;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;

/**
 * Plain Pods that name a LocalQueue, with their Workloads (the pod integration). Beside {@code
 * PodReconciler}, which sees every pod for topology capacity and gates; this one sees only pods
 * labelled with a queue, and runs those the pod webhook gated ({@link PodAdapter#manages}).
 */
public final class PodWorkloadReconciler extends IntegrationReconciler<Pod>
    implements Reconciler<Pod> {
  public PodWorkloadReconciler(
      WorkloadLifecycle<Pod> lifecycle, SharedVersions versions, KubernetesClient writes) {
    super(Pod.class, lifecycle, versions, writes);
  }
}
