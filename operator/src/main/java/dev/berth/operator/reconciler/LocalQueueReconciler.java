package dev.berth.operator.reconciler;

import dev.berth.api.v1beta1.LocalQueue;
import dev.berth.operator.admission.AdmissionLoop;
import dev.berth.operator.informers.InformerCaches;
import dev.berth.operator.informers.Informers;
import dev.berth.operator.kube.LeanItemStore;
import dev.berth.webhook.validation.BerthValidators;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import java.util.List;
import java.util.Map;

/** Feeds LocalQueues to the engine. */
@ControllerConfiguration(
    informer = @Informer(informerListLimit = Informers.LIST_LIMIT, itemStore = LeanItemStore.class),
    triggerReconcilerOnAllEvents = true)
public final class LocalQueueReconciler implements Reconciler<LocalQueue> {
  private final AdmissionLoop loop;
  private final InformerCaches caches;
  private final SpecCheck check;

  public LocalQueueReconciler(AdmissionLoop loop, InformerCaches caches, SpecCheck check) {
    this.caches = caches;
    this.loop = loop;
    this.check = check;
  }

  @Override
  public List<EventSource<?, LocalQueue>> prepareEventSources(
      EventSourceContext<LocalQueue> context) {
    return caches.primary(LocalQueue.class, context, Map.of());
  }

  @Override
  public UpdateControl<LocalQueue> reconcile(LocalQueue lq, Context<LocalQueue> context) {
    String namespace = lq.getMetadata().getNamespace();
    String name = lq.getMetadata().getName();
    if (context.isPrimaryResourceDeleted()) {
      loop.submit(state -> state.localQueueDeleted(namespace, name));
    } else {
      LocalQueue copy = Finalizers.copy(lq);
      if (check.accepts(lq, BerthValidators.localQueue(lq))) {
        loop.submit(state -> state.localQueue(copy));
      }
    }
    return UpdateControl.noUpdate();
  }
}
