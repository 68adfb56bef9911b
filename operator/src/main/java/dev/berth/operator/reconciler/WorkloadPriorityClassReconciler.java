package dev.berth.operator.reconciler;

import dev.berth.api.v1beta1.WorkloadPriorityClass;
import dev.berth.operator.informers.Informers;
import dev.berth.operator.integration.PriorityResolver;
import dev.berth.operator.kube.LeanItemStore;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;

/** Keeps the priority values that new Workloads get. */
@ControllerConfiguration(
    informer = @Informer(informerListLimit = Informers.LIST_LIMIT, itemStore = LeanItemStore.class),
    triggerReconcilerOnAllEvents = true,
    generationAwareEventProcessing = false)
public final class WorkloadPriorityClassReconciler implements Reconciler<WorkloadPriorityClass> {
  private final PriorityResolver priorities;

  public WorkloadPriorityClassReconciler(PriorityResolver priorities) {
    this.priorities = priorities;
  }

  @Override
  public UpdateControl<WorkloadPriorityClass> reconcile(
      WorkloadPriorityClass wpc, Context<WorkloadPriorityClass> context) {
    if (context.isPrimaryResourceDeleted()) {
      priorities.workloadPriorityClassDeleted(wpc.getMetadata().getName());
    } else {
      priorities.workloadPriorityClass(wpc);
    }
    return UpdateControl.noUpdate();
  }
}
