package dev.berth.operator.reconciler;

import dev.berth.operator.admission.AdmissionLoop;
import dev.berth.operator.informers.InformerCaches;
import dev.berth.operator.informers.Informers;
import dev.berth.operator.kube.LeanItemStore;
import io.fabric8.kubernetes.api.model.Node;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import java.util.List;
import java.util.Map;

/**
 * Nodes, for topology-aware placement. Every status heartbeat arrives here; the engine ignores a
 * node whose labels, allocatable, readiness, cordon and taints did not change.
 */
@ControllerConfiguration(
    informer = @Informer(informerListLimit = Informers.LIST_LIMIT, itemStore = LeanItemStore.class),
    triggerReconcilerOnAllEvents = true,
    generationAwareEventProcessing = false)
public final class NodeReconciler implements Reconciler<Node> {
  private final AdmissionLoop loop;
  private final InformerCaches caches;

  public NodeReconciler(AdmissionLoop loop, InformerCaches caches) {
    this.caches = caches;
    this.loop = loop;
  }

  @Override
  public List<EventSource<?, Node>> prepareEventSources(EventSourceContext<Node> context) {
    return caches.primary(Node.class, context, Map.of());
  }

  @Override
  public UpdateControl<Node> reconcile(Node node, Context<Node> context) {
    if (context.isPrimaryResourceDeleted()) {
      String name = node.getMetadata().getName();
      loop.submit(state -> state.nodeDeleted(name));
    } else {
      loop.submit(state -> state.node(node));
    }
    return UpdateControl.noUpdate();
  }
}
