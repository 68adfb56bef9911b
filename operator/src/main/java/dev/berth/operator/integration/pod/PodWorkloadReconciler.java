package dev.berth.operator.integration.pod;

import dev.berth.operator.integration.IntegrationReconciler;
import dev.berth.operator.integration.OwnedWorkloads;
import dev.berth.operator.integration.WorkloadLifecycle;
import dev.berth.operator.kube.SharedVersions;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import java.util.List;
import java.util.Map;

/**
 * Plain Pods that name a LocalQueue, with their Workloads (the pod integration): a pod alone
 * through the generic lifecycle ({@link PodAdapter}), a pod of a group through its group's ({@link
 * PodGroupLifecycle}), found through an index of the cached pods by group. Beside {@code
 * PodReconciler}, which sees every pod for topology capacity and gates; this one sees only pods
 * labelled with a queue.
 */
public final class PodWorkloadReconciler extends IntegrationReconciler<Pod>
    implements Reconciler<Pod> {
  /** The cached pods of a group, by {@code namespace/group}. */
  static final String GROUP_INDEX = "berth-pod-group";

  private final PodGroupLifecycle groups;

  public PodWorkloadReconciler(
      WorkloadLifecycle<Pod> lifecycle,
      PodGroupLifecycle groups,
      SharedVersions versions,
      KubernetesClient writes) {
    super(Pod.class, lifecycle, versions, writes);
    this.groups = groups;
  }

  @Override
  protected List<String> workloadOwnerKinds() {
    return List.of("Pod", PodGroupLifecycle.OWNER_KIND);
  }

  @Override
  protected List<EventSource<?, Pod>> ownEventSources(EventSourceContext<Pod> context) {
    context
        .getPrimaryCache()
        .addIndexers(
            Map.of(
                GROUP_INDEX,
                pod -> {
                  String group = PodGroupLifecycle.groupOf(pod);
                  return group == null || !PodAdapter.isQueued(pod)
                      ? List.of()
                      : List.of(key(pod.getMetadata().getNamespace(), group));
                }));
    return List.of();
  }

  private static String key(String namespace, String group) {
    return namespace + "/" + group;
  }

  @Override
  protected void reconcileOther(KubernetesClient client, Pod pod, Context<Pod> context) {
    String group = PodGroupLifecycle.groupOf(pod);
    if (group == null || !PodAdapter.isQueued(pod)) {
      return;
    }
    String namespace = pod.getMetadata().getNamespace();
    groups.reconcile(
        client,
        namespace,
        group,
        pod,
        context.getPrimaryCache().byIndex(GROUP_INDEX, key(namespace, group)),
        OwnedWorkloads.byName(context, namespace, group),
        created -> OwnedWorkloads.remember(context, created));
  }
}
