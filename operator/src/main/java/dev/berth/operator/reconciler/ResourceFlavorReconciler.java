package dev.berth.operator.reconciler;

import dev.berth.api.v1beta1.ClusterQueue;
import dev.berth.api.v1beta1.ResourceFlavor;
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
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Feeds ResourceFlavors to the engine and keeps {@code berth.dev/resource-in-use} on each one until
 * no ClusterQueue names it, so a flavor cannot vanish from under admitted workloads.
 */
@ControllerConfiguration(
    informer = @Informer(informerListLimit = Informers.LIST_LIMIT, itemStore = LeanItemStore.class),
    triggerReconcilerOnAllEvents = true)
public final class ResourceFlavorReconciler implements Reconciler<ResourceFlavor> {
  private final AdmissionLoop loop;
  private final InformerCaches caches;
  private final SpecCheck check;

  public ResourceFlavorReconciler(AdmissionLoop loop, InformerCaches caches, SpecCheck check) {
    this.caches = caches;
    this.loop = loop;
    this.check = check;
  }

  @Override
  public List<EventSource<?, ResourceFlavor>> prepareEventSources(
      EventSourceContext<ResourceFlavor> context) {
    return caches.primary(ResourceFlavor.class, context, Map.of());
  }

  @Override
  public UpdateControl<ResourceFlavor> reconcile(
      ResourceFlavor flavor, Context<ResourceFlavor> context) {
    String name = flavor.getMetadata().getName();
    if (context.isPrimaryResourceDeleted()) {
      loop.submit(state -> state.flavorDeleted(name));
      return UpdateControl.noUpdate();
    }
    ResourceFlavor copy = Finalizers.copy(flavor);
    if (check.accepts(flavor, BerthValidators.resourceFlavor(flavor))) {
      loop.submit(state -> state.flavor(copy));
    }
    if (Finalizers.isDeleting(flavor)) {
      // From the ClusterQueue informer's index, not a LIST of every ClusterQueue per event.
      boolean inUse =
          !caches.byIndex(ClusterQueue.class, ClusterQueueReconciler.BY_FLAVOR, name).isEmpty();
      if (inUse) {
        // Waits for the ClusterQueues to let go; rechecked on a timer only while terminating.
        return UpdateControl.<ResourceFlavor>noUpdate().rescheduleAfter(Duration.ofSeconds(5));
      }
      Finalizers.remove(context.getClient(), flavor);
      return UpdateControl.noUpdate();
    }
    ResourceFlavor stored = Finalizers.ensure(context.getClient(), flavor);
    if (stored != flavor) {
      // The finalizer write is a new version, and status writes must carry it.
      loop.submit(state -> state.flavor(stored));
    }
    return UpdateControl.noUpdate();
  }
}
