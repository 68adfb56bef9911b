package dev.berth.operator.reconciler;

import dev.berth.api.v1beta1.Workload;
import dev.berth.operator.admission.AdmissionLoop;
import dev.berth.operator.informers.InformerCaches;
import dev.berth.operator.informers.Informers;
import dev.berth.operator.kube.LeanItemStore;
import dev.berth.webhook.validation.BerthValidators;
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
 * Feeds every Workload change, status included, to the engine: the status says whether it holds
 * quota, waits, or finished.
 */
@ControllerConfiguration(
    informer = @Informer(informerListLimit = Informers.LIST_LIMIT, itemStore = LeanItemStore.class),
    triggerReconcilerOnAllEvents = true,
    generationAwareEventProcessing = false)
public final class WorkloadReconciler implements Reconciler<Workload> {
  private final AdmissionLoop loop;
  private final InformerCaches caches;
  private final SpecCheck check;

  public WorkloadReconciler(AdmissionLoop loop, InformerCaches caches, SpecCheck check) {
    this.caches = caches;
    this.loop = loop;
    this.check = check;
  }

  @Override
  public List<EventSource<?, Workload>> prepareEventSources(EventSourceContext<Workload> context) {
    return caches.primary(
        Workload.class,
        context,
        Map.of(ClusterQueueReconciler.QUOTA_HOLDERS, ClusterQueueReconciler::quotaHeldIn));
  }

  @Override
  public UpdateControl<Workload> reconcile(Workload workload, Context<Workload> context) {
    String uid = workload.getMetadata().getUid();
    if (context.isPrimaryResourceDeleted()) {
      loop.submit(state -> state.workloadDeleted(uid));
    } else {
      if (check.accepts(workload, BerthValidators.workload(workload))) {
        // Handed as cached (ReconcileCopies): read only, here and in the loop.
        loop.submitWorkload(uid, workload);
      }
    }
    return UpdateControl.noUpdate();
  }
}
