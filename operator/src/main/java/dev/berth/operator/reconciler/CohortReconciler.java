package dev.berth.operator.reconciler;

import dev.berth.api.v1beta1.Cohort;
import dev.berth.operator.admission.AdmissionLoop;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;

/** Feeds explicit Cohorts (parent, own quota, limits) to the engine. */
@ControllerConfiguration(triggerReconcilerOnAllEvents = true)
public final class CohortReconciler implements Reconciler<Cohort> {
  private final AdmissionLoop loop;

  public CohortReconciler(AdmissionLoop loop) {
    this.loop = loop;
  }

  @Override
  public UpdateControl<Cohort> reconcile(Cohort cohort, Context<Cohort> context) {
    String name = cohort.getMetadata().getName();
    if (context.isPrimaryResourceDeleted()) {
      loop.submit(state -> state.cohortDeleted(name));
    } else {
      Cohort copy = Finalizers.copy(cohort);
      loop.submit(state -> state.cohort(copy));
    }
    return UpdateControl.noUpdate();
  }
}
