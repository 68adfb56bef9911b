package dev.berth.operator.reconciler;

import dev.berth.api.v1beta1.LocalQueue;
import dev.berth.operator.admission.AdmissionLoop;
import dev.berth.webhook.validation.BerthValidators;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;

/** Feeds LocalQueues to the engine. */
@ControllerConfiguration(triggerReconcilerOnAllEvents = true)
public final class LocalQueueReconciler implements Reconciler<LocalQueue> {
  private final AdmissionLoop loop;
  private final SpecCheck check;

  public LocalQueueReconciler(AdmissionLoop loop, SpecCheck check) {
    this.loop = loop;
    this.check = check;
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
