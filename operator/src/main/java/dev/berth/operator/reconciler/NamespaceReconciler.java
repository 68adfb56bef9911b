package dev.berth.operator.reconciler;

import dev.berth.operator.admission.AdmissionLoop;
import dev.berth.operator.informers.InformerCaches;
import dev.berth.operator.informers.Informers;
import dev.berth.operator.kube.LeanItemStore;
import io.fabric8.kubernetes.api.model.Namespace;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Namespace labels, for the ClusterQueues' namespaceSelectors. */
@ControllerConfiguration(
    informer = @Informer(informerListLimit = Informers.LIST_LIMIT, itemStore = LeanItemStore.class),
    triggerReconcilerOnAllEvents = true,
    generationAwareEventProcessing = false)
public final class NamespaceReconciler implements Reconciler<Namespace> {
  private final AdmissionLoop loop;
  private final InformerCaches caches;

  public NamespaceReconciler(AdmissionLoop loop, InformerCaches caches) {
    this.caches = caches;
    this.loop = loop;
  }

  @Override
  public List<EventSource<?, Namespace>> prepareEventSources(
      EventSourceContext<Namespace> context) {
    return caches.primary(Namespace.class, context, Map.of());
  }

  @Override
  public UpdateControl<Namespace> reconcile(Namespace namespace, Context<Namespace> context) {
    String name = namespace.getMetadata().getName();
    if (context.isPrimaryResourceDeleted()) {
      loop.submit(state -> state.namespaceDeleted(name));
    } else {
      Map<String, String> labels =
          new HashMap<>(
              namespace.getMetadata().getLabels() == null
                  ? Map.of()
                  : namespace.getMetadata().getLabels());
      loop.submit(state -> state.namespace(name, labels));
    }
    return UpdateControl.noUpdate();
  }
}
