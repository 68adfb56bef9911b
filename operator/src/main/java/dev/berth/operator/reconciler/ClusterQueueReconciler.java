package dev.berth.operator.reconciler;

import dev.berth.api.v1beta1.ClusterQueue;
import dev.berth.api.v1beta1.Workload;
import dev.berth.operator.admission.AdmissionLoop;
import dev.berth.operator.admission.StatusConditions;
import dev.berth.webhook.validation.BerthValidators;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Feeds ClusterQueues to the engine; keeps the resource-in-use finalizer while workloads still hold
 * quota in the queue. Status is written by the admission loop's publisher.
 */
@ControllerConfiguration(triggerReconcilerOnAllEvents = true)
public final class ClusterQueueReconciler implements Reconciler<ClusterQueue> {
  private final AdmissionLoop loop;
  private final SpecCheck check;

  /** Deleting ClusterQueues: done once the loop has run a cycle that knew it was terminating. */
  private final Map<String, CompletableFuture<Void>> terminating = new ConcurrentHashMap<>();

  public ClusterQueueReconciler(AdmissionLoop loop, SpecCheck check) {
    this.loop = loop;
    this.check = check;
  }

  /**
   * Whether any unfinished Workload holds quota in the queue, read from the API server rather than
   * from the loop's last snapshot: a finalizer must never go on a stale answer.
   */
  private static boolean holdsQuota(Context<ClusterQueue> context, String name) {
    return context.getClient().resources(Workload.class).inAnyNamespace().list().getItems().stream()
        .anyMatch(
            w ->
                StatusConditions.hasQuotaReserved(w)
                    && name.equals(w.getStatus().admission.clusterQueue)
                    && !StatusConditions.isFinished(w));
  }

  @Override
  public UpdateControl<ClusterQueue> reconcile(ClusterQueue cq, Context<ClusterQueue> context) {
    String name = cq.getMetadata().getName();
    if (context.isPrimaryResourceDeleted()) {
      terminating.remove(name);
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
      if (holdsQuota(context, name)) {
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
