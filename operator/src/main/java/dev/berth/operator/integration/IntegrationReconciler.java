package dev.berth.operator.integration;

import dev.berth.api.v1beta1.Berth;
import dev.berth.operator.informers.Informers;
import dev.berth.operator.kube.LeanItemStore;
import dev.berth.operator.kube.SharedVersions;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import java.util.ArrayList;
import java.util.List;

/**
 * The reconcile of every kind Berth runs under a Workload (the managed objects, those with {@code
 * berth.dev/queue-name}): its Workloads watched beside it, and each event handed to the kind's
 * {@link WorkloadLifecycle}, which holds what differs between kinds (its {@code Integration}). A
 * kind gets a subclass that names it, {@code extends IntegrationReconciler<K> implements
 * Reconciler<K>}, because JOSDK (and the model warm-up, {@code ModelWarmup}) take the primary
 * resource's class from that type argument; the subclass adds the event sources of the kind's own,
 * if any. The configuration below is inherited ({@link ControllerConfiguration} is
 * {@code @Inherited}).
 */
@ControllerConfiguration(
    triggerReconcilerOnAllEvents = true,
    generationAwareEventProcessing = false,
    informer =
        @Informer(
            informerListLimit = Informers.LIST_LIMIT,
            labelSelector = Berth.QUEUE_NAME_LABEL,
            itemStore = LeanItemStore.class))
public abstract class IntegrationReconciler<T extends HasMetadata> {
  private final Class<T> type;
  private final WorkloadLifecycle<T> lifecycle;
  private final SharedVersions versions;

  /** The client of its writes (fabric8's retry off); null: the reconcile context's. */
  private final KubernetesClient writes;

  /**
   * With the writes (and the live reads that decide them) sent through {@code writes}, a client
   * that sends each request once, so that a write of unknown outcome reaches the lifecycle's
   * read-back instead of being re-sent ({@link WorkloadLifecycle}); null: the context's client.
   */
  protected IntegrationReconciler(
      Class<T> type,
      WorkloadLifecycle<T> lifecycle,
      SharedVersions versions,
      KubernetesClient writes) {
    this.type = type;
    this.lifecycle = lifecycle;
    this.versions = versions;
    this.writes = writes;
  }

  /**
   * {@link Reconciler#prepareEventSources}: its Workloads, then the kind's own; its primary cache
   * is offered for the owners' state shown by the visibility API ({@link OwnerStatuses}).
   */
  public final List<EventSource<?, T>> prepareEventSources(EventSourceContext<T> context) {
    lifecycle.offerOwners(context.getPrimaryCache());
    List<EventSource<?, T>> sources = new ArrayList<>();
    sources.add(OwnedWorkloads.eventSource(context, type, workloadOwnerKinds(), versions));
    sources.addAll(ownEventSources(context));
    return sources;
  }

  /**
   * The owner kinds (the {@code berth.dev/owner-kind} label) of the Workloads it watches: its
   * kind's; a kind whose objects also make Workloads of another shape (pods, in groups) adds
   * theirs.
   */
  protected List<String> workloadOwnerKinds() {
    return List.of(lifecycle.kind());
  }

  /**
   * An object its lifecycle does not manage ({@link WorkloadLifecycle#manages}); ignored, unless
   * the kind runs such objects another way (a pod group's pods).
   */
  protected void reconcileOther(KubernetesClient client, T owner, Context<T> context) {}

  /** Event sources of the kind's own, beside its Workloads' (none by default). */
  protected List<EventSource<?, T>> ownEventSources(EventSourceContext<T> context) {
    return List.of();
  }

  /** {@link Reconciler#reconcile}: the owner's event handed to its lifecycle. */
  public final UpdateControl<T> reconcile(T owner, Context<T> context) {
    KubernetesClient client = writes == null ? context.getClient() : writes;
    if (!lifecycle.manages(owner)) {
      reconcileOther(client, owner, context);
      return UpdateControl.noUpdate();
    }
    if (context.isPrimaryResourceDeleted()) {
      lifecycle.deleted(client, owner);
    } else {
      lifecycle.reconcile(
          client,
          owner,
          OwnedWorkloads.find(context, lifecycle.workloadName(owner)),
          created -> OwnedWorkloads.created(context, created));
    }
    return UpdateControl.noUpdate();
  }
}
