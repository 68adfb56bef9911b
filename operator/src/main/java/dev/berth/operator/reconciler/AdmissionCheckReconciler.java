package dev.berth.operator.reconciler;

import dev.berth.api.v1beta1.AdmissionCheck;
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
 * AdmissionChecks, status included (their controllers mark them Active): the workloads waiting on a
 * check are looked at again when it changes.
 */
@ControllerConfiguration(
    informer = @Informer(informerListLimit = Informers.LIST_LIMIT, itemStore = LeanItemStore.class),
    triggerReconcilerOnAllEvents = true,
    generationAwareEventProcessing = false)
public final class AdmissionCheckReconciler implements Reconciler<AdmissionCheck> {
  private final AdmissionLoop loop;
  private final InformerCaches caches;
  private final SpecCheck check;

  public AdmissionCheckReconciler(AdmissionLoop loop, InformerCaches caches, SpecCheck check) {
    this.caches = caches;
    this.loop = loop;
    this.check = check;
  }

  @Override
  public List<EventSource<?, AdmissionCheck>> prepareEventSources(
      EventSourceContext<AdmissionCheck> context) {
    return caches.primary(AdmissionCheck.class, context, Map.of());
  }

  @Override
  public UpdateControl<AdmissionCheck> reconcile(
      AdmissionCheck admissionCheck, Context<AdmissionCheck> context) {
    String name = admissionCheck.getMetadata().getName();
    if (context.isPrimaryResourceDeleted()) {
      loop.submit(state -> state.admissionCheckDeleted(name));
    } else if (check.accepts(admissionCheck, BerthValidators.admissionCheck(admissionCheck))) {
      AdmissionCheck copy = Finalizers.copy(admissionCheck);
      loop.submit(state -> state.admissionCheck(copy));
    }
    return UpdateControl.noUpdate();
  }
}
