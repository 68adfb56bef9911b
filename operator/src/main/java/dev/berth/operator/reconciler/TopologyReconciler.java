package dev.berth.operator.reconciler;

import dev.berth.api.v1beta1.Topology;
import dev.berth.operator.admission.AdmissionLoop;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;

/** Topologies, for the node inventories of topology-aware flavors. */
@ControllerConfiguration(triggerReconcilerOnAllEvents = true)
public final class TopologyReconciler implements Reconciler<Topology> {
  private final AdmissionLoop loop;

  public TopologyReconciler(AdmissionLoop loop) {
    this.loop = loop;
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
