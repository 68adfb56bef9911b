package dev.berth.operator.reconciler;

import dev.berth.operator.admission.AdmissionLoop;
import io.fabric8.kubernetes.api.model.Namespace;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import java.util.HashMap;
import java.util.Map;

/** Namespace labels, for the ClusterQueues' namespaceSelectors. */
@ControllerConfiguration(
    triggerReconcilerOnAllEvents = true,
    generationAwareEventProcessing = false)
public final class NamespaceReconciler implements Reconciler<Namespace> {
  private final AdmissionLoop loop;

  public NamespaceReconciler(AdmissionLoop loop) {
    this.loop = loop;
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
