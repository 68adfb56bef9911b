package dev.berth.operator.reconciler;

import dev.berth.operator.admission.AdmissionLoop;
import io.fabric8.kubernetes.api.model.Node;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;

/**
 * Nodes, for topology-aware placement. Every status heartbeat arrives here; the engine ignores a
 * node whose labels, allocatable, readiness, cordon and taints did not change.
 */
@ControllerConfiguration(
    triggerReconcilerOnAllEvents = true,
    generationAwareEventProcessing = false)
public final class NodeReconciler implements Reconciler<Node> {
  private final AdmissionLoop loop;

  public NodeReconciler(AdmissionLoop loop) {
    this.loop = loop;
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
