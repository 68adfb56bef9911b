package dev.berth.operator.reconciler;

import dev.berth.api.v1beta1.Topology;
import dev.berth.operator.admission.AdmissionLoop;
import dev.berth.operator.informers.InformerCaches;
import dev.berth.operator.informers.Informers;
import dev.berth.operator.kube.LeanItemStore;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import java.util.List;
import java.util.Map;

/** Topologies, for the node inventories of topology-aware flavors. */
@ControllerConfiguration(
    informer = @Informer(informerListLimit = Informers.LIST_LIMIT, itemStore = LeanItemStore.class),
    triggerReconcilerOnAllEvents = true)
public final class TopologyReconciler implements Reconciler<Topology> {
  private final AdmissionLoop loop;
  private final InformerCaches caches;

  public TopologyReconciler(AdmissionLoop loop, InformerCaches caches) {
    this.caches = caches;
    this.loop = loop;
  }

  @Override
  public List<EventSource<?, Topology>> prepareEventSources(EventSourceContext<Topology> context) {
    return caches.primary(Topology.class, context, Map.of());
  }

  @Override
  public UpdateControl<Topology> reconcile(Topology topology, Context<Topology> context) {
    if (context.isPrimaryResourceDeleted()) {
      String name = topology.getMetadata().getName();
      loop.submit(state -> state.topologyDeleted(name));
    } else {
      loop.submit(state -> state.topology(topology));
    }
    return UpdateControl.noUpdate();
  }
}
