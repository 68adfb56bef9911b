package dev.berth.operator.reconciler;

import dev.berth.api.v1beta1.Workload;
import dev.berth.operator.admission.AdmissionLoop;
import dev.berth.webhook.validation.BerthValidators;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;

/**
 * Feeds every Workload change, status included, to the engine: the status says whether it holds
 * quota, waits, or finished.
 */
@ControllerConfiguration(
    triggerReconcilerOnAllEvents = true,
    generationAwareEventProcessing = false)
public final class WorkloadReconciler implements Reconciler<Workload> {
  private final AdmissionLoop loop;
  private final SpecCheck check;

  public WorkloadReconciler(AdmissionLoop loop, SpecCheck check) {
    this.loop = loop;
    this.check = check;
  }

  @Override
  public UpdateControl<Workload> reconcile(Workload workload, Context<Workload> context) {
    String uid = workload.getMetadata().getUid();
    if (context.isPrimaryResourceDeleted()) {
      loop.submit(state -> state.workloadDeleted(uid));
    } else {
      Workload copy = Finalizers.copy(workload);
      if (check.accepts(workload, BerthValidators.workload(workload))) {
        loop.submit(state -> state.workload(copy));
      }
    }
    return UpdateControl.noUpdate();
  }
}
