package dev.berth.operator.reconciler;

import dev.berth.api.v1beta1.ClusterQueue;
import dev.berth.api.v1beta1.Workload;
import dev.berth.operator.admission.AdmissionLoop;
import dev.berth.operator.admission.StatusConditions;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Feeds ClusterQueues to the engine; keeps the resource-in-use finalizer while workloads still hold
 * quota in the queue. Status is written by the admission loop's publisher.
 */
@ControllerConfiguration(
    informer = @Informer(informerListLimit = Informers.LIST_LIMIT, itemStore = LeanItemStore.class),
    triggerReconcilerOnAllEvents = true)
public final class ClusterQueueReconciler implements Reconciler<ClusterQueue> {
  private final AdmissionLoop loop;
  private final InformerCaches caches;
  private final SpecCheck check;

  /** Deleting ClusterQueues: done once the loop has run a cycle that knew it was terminating. */
  private final Map<String, CompletableFuture<Void>> terminating = new ConcurrentHashMap<>();

  public ClusterQueueReconciler(AdmissionLoop loop, InformerCaches caches, SpecCheck check) {
    this.caches = caches;
    this.loop = loop;
    this.check = check;
  }

  /**
   * The Workload informer's index (added by the {@link WorkloadReconciler}) of unfinished Workloads
   * by the ClusterQueue they hold quota in, so the finalizer check reads a few entries instead of
   * listing every Workload in the cluster.
   */
  static final String QUOTA_HOLDERS = "berth.dev/quota-holders-by-clusterqueue";

  static List<String> quotaHeldIn(Workload w) {
    return StatusConditions.hasQuotaReserved(w) && !StatusConditions.isFinished(w)
        ? List.of(w.getStatus().admission.clusterQueue)
        : List.of();
  }

  /**
   * The ClusterQueue informer's index by the ResourceFlavors a queue names (a flavor's finalizer).
   */
  static final String BY_FLAVOR = "berth.dev/clusterqueues-by-flavor";

  /** Deleting ClusterQueues: the loop's answer whether its engine still holds quota in each. */
  private final Map<String, CompletableFuture<Boolean>> engineHolds = new ConcurrentHashMap<>();

  /**
   * Whether any unfinished Workload holds quota in the queue: empty, or not yet known (null). A
   * finalizer must never go on a stale answer, and each source alone can be: the informer has not
   * seen an admission whose write just returned, and the engine has not yet been told of an
   * admission another leader made. So both are asked, the informer first: an admission the informer
   * has not seen yet is still the engine's when the loop answers after it, and no new one is
   * decided once the loop knows the queue is terminating.
   */
  private Boolean holdsQuota(String name) {
    if (!caches.byIndex(Workload.class, QUOTA_HOLDERS, name).isEmpty()) {
      engineHolds.remove(name);
      return true;
    }
    CompletableFuture<Boolean> asked = engineHolds.get(name);
    if (asked == null) {
      CompletableFuture<Boolean> answer = new CompletableFuture<>();
      engineHolds.put(name, answer);
      loop.submit(state -> answer.complete(state.holdsQuotaIn(name)));
      return null;
    }
    if (!asked.isDone()) {
      return null;
    }
    engineHolds.remove(name);
    return asked.join();
  }

  @Override
  public List<EventSource<?, ClusterQueue>> prepareEventSources(
      EventSourceContext<ClusterQueue> context) {
    return caches.primary(
        ClusterQueue.class, context, Map.of(BY_FLAVOR, cq -> List.copyOf(References.flavors(cq))));
  }

  @Override
  public UpdateControl<ClusterQueue> reconcile(ClusterQueue cq, Context<ClusterQueue> context) {
    String name = cq.getMetadata().getName();
    if (context.isPrimaryResourceDeleted()) {
      terminating.remove(name);
      engineHolds.remove(name);
      loop.submit(state -> state.clusterQueueDeleted(name));
      return UpdateControl.noUpdate();
    }
    ClusterQueue copy = Finalizers.copy(cq);
    CompletableFuture<Void> fed = null;
    if (check.accepts(cq, BerthValidators.clusterQueue(cq))) {
      // With a deletionTimestamp the loop marks it terminating: it admits nothing new, and what
      // it holds finishes in peace.
      fed = loop.submit(state -> state.clusterQueue(copy));
    }
    if (Finalizers.isDeleting(cq)) {
      if (fed == null) {
        // Invalid now: still make sure it admits nothing while it goes.
        fed = loop.submit(state -> state.clusterQueueTerminating(name));
      }
      terminating.putIfAbsent(name, fed);
      if (!terminating.get(name).isDone()) {
        // A cycle that started before the loop saw the deletion may still be writing an admission
        // into it: look at the Workloads only once the loop has decided with it terminating.
        return UpdateControl.<ClusterQueue>noUpdate().rescheduleAfter(Duration.ofMillis(500));
      }
      Boolean holds = holdsQuota(name);
      if (holds == null) {
        return UpdateControl.<ClusterQueue>noUpdate().rescheduleAfter(Duration.ofMillis(200));
      }
      if (holds) {
        return UpdateControl.<ClusterQueue>noUpdate().rescheduleAfter(Duration.ofSeconds(5));
      }
      Finalizers.remove(context.getClient(), cq);
      terminating.remove(name);
      return UpdateControl.noUpdate();
    }
    ClusterQueue stored = Finalizers.ensure(context.getClient(), cq);
    if (stored != cq) {
      // The finalizer write is a new version, and status writes must carry it.
      loop.submit(state -> state.clusterQueue(stored));
    }
    return UpdateControl.noUpdate();
  }
}
