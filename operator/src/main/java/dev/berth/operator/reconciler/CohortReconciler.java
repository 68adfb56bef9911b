package dev.berth.operator.reconciler;

import dev.berth.api.v1beta1.Cohort;
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

/** Feeds explicit Cohorts (parent, own quota, limits) to the engine. */
@ControllerConfiguration(
    informer = @Informer(informerListLimit = Informers.LIST_LIMIT, itemStore = LeanItemStore.class),
    triggerReconcilerOnAllEvents = true)
public final class CohortReconciler implements Reconciler<Cohort> {
  private final AdmissionLoop loop;
  private final InformerCaches caches;
  private final SpecCheck check;

  public CohortReconciler(AdmissionLoop loop, InformerCaches caches, SpecCheck check) {
    this.caches = caches;
    this.loop = loop;
    this.check = check;
  }

  @Override
  public List<EventSource<?, Cohort>> prepareEventSources(EventSourceContext<Cohort> context) {
    return caches.primary(Cohort.class, context, Map.of());
  }

  @Override
  public UpdateControl<Cohort> reconcile(Cohort cohort, Context<Cohort> context) {
    String name = cohort.getMetadata().getName();
    if (context.isPrimaryResourceDeleted()) {
      loop.submit(state -> state.cohortDeleted(name));
    } else {
      Cohort copy = Finalizers.copy(cohort);
      if (check.accepts(cohort, BerthValidators.cohort(cohort))) {
        loop.submit(state -> state.cohort(copy));
      }
    }
    return UpdateControl.noUpdate();
  }
}
