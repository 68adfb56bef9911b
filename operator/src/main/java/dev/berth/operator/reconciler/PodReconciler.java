package dev.berth.operator.reconciler;

import dev.berth.operator.admission.AdmissionLoop;
import dev.berth.operator.informers.InformerCaches;
import dev.berth.operator.informers.Informers;
import dev.berth.operator.kube.LeanItemStore;
import dev.berth.operator.topology.TopologyUngater;
import io.fabric8.kubernetes.api.model.Pod;
import io.javaoperatorsdk.operator.api.config.informer.Field;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Pods: those bound to nodes take capacity from topology-aware placement, and those of an admitted
 * topology-aware podSet wait behind Berth's scheduling gate until the {@link TopologyUngater} sends
 * each into its domain.
 */
@ControllerConfiguration(
    triggerReconcilerOnAllEvents = true,
    generationAwareEventProcessing = false,
    // Finished pods hold no node capacity and need no gate: not cached at all. A pod that finishes
    // leaves the selection, which the informer reports as its deletion.
    informer =
        @Informer(
            informerListLimit = Informers.LIST_LIMIT,
            itemStore = LeanItemStore.class,
            fieldSelector = {
              @Field(path = "status.phase", value = "Succeeded", negated = true),
              @Field(path = "status.phase", value = "Failed", negated = true)
            }))
public final class PodReconciler implements Reconciler<Pod> {
  private final AdmissionLoop loop;
  private final InformerCaches caches;
  private final TopologyUngater ungater;

  public PodReconciler(AdmissionLoop loop, InformerCaches caches, TopologyUngater ungater) {
    this.caches = caches;
    this.loop = loop;
    this.ungater = ungater;
  }

  @Override
  public List<EventSource<?, Pod>> prepareEventSources(EventSourceContext<Pod> context) {
    return caches.primary(
        Pod.class, context, Map.of(TopologyUngater.PODS_OF_PODSET, TopologyUngater::podSetKey));
  }

  @Override
  public UpdateControl<Pod> reconcile(Pod pod, Context<Pod> context) {
    if (context.isPrimaryResourceDeleted()) {
      String uid = pod.getMetadata().getUid();
      loop.submit(state -> state.podDeleted(uid));
      ungater.observed(uid);
      return UpdateControl.noUpdate();
    }
    loop.submit(state -> state.pod(pod));
    if (!TopologyUngater.isGated(pod)) {
      ungater.observed(pod.getMetadata().getUid());
    } else if (!ungater.ungate(context.getClient(), pod)) {
      // Its Workload's admission is not known yet (or has no room left): look again shortly.
      return UpdateControl.<Pod>noUpdate().rescheduleAfter(Duration.ofSeconds(2));
    }
    return UpdateControl.noUpdate();
  }
}
