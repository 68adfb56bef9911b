package dev.berth.operator.integration;

import dev.berth.api.v1beta1.Workload;
import dev.berth.api.v1beta1.WorkloadStatus;
import dev.berth.operator.admission.StatusConditions;
import dev.berth.operator.events.EventRecorder;
import dev.berth.operator.kube.ApiErrors;
import dev.berth.operator.kube.Copies;
import dev.berth.operator.kube.ReadBack;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.javaoperatorsdk.operator.processing.event.source.IndexerResourceCache;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Runs a batch object (Job, JobSet) under its Workload: created with a Workload; suspended until
 * the Workload holds quota, then started on the assigned flavors; suspended and restored on
 * eviction, quota released once no pod runs; Workload finished when the object ends. Each call
 * makes at most one write, carrying the resourceVersion; the event it causes brings the next step.
 */
public final class WorkloadLifecycle<T extends HasMetadata> {
  private final Integration<T> integration;
  private final PriorityResolver priorities;
  private final Integration.FlavorLookup flavors;
  private final EventRecorder events;
  private final Clock clock;

  /** waitForPodsReady on: an admitted Workload's PodsReady condition follows its pods. */
  private final boolean podsReady;

  private DeviceCharges devices = DeviceCharges.NONE;
  private OwnerStatuses owners;

  public WorkloadLifecycle(
      Integration<T> integration,
      PriorityResolver priorities,
      Integration.FlavorLookup flavors,
      EventRecorder events,
      Clock clock) {
    this(integration, priorities, flavors, events, clock, false);
  }

  public WorkloadLifecycle(
      Integration<T> integration,
      PriorityResolver priorities,
      Integration.FlavorLookup flavors,
      EventRecorder events,
      Clock clock,
      boolean podsReady) {
    this.podsReady = podsReady;
    this.integration = integration;
    this.priorities = priorities;
    this.flavors = flavors;
    this.events = events;
    this.clock = clock;
  }

  /** What a new Workload's pods hold through ResourceClaims (docs/dra.md). */
  WorkloadLifecycle<T> devices(DeviceCharges devices) {
    this.devices = devices;
    return this;
  }

  /** Where its kind's objects and their state are offered to the visibility API; null: nowhere. */
  WorkloadLifecycle<T> ownerStatuses(OwnerStatuses owners) {
    this.owners = owners;
    return this;
  }

  /**
   * The kind's objects, read from {@code cache}, offered with their state ({@link OwnerStatuses}).
   */
  void offerOwners(IndexerResourceCache<T> cache) {
    if (owners != null) {
      // A lambda, not cache::get: that names JOSDK's internal Cache (OperatorArchitectureTest).
      owners.add(integration.kind(), id -> cache.get(id), integration::ownerStatus);
    }
  }

  /** The kind it runs (its Workloads' owner kind label). */
  public String kind() {
    return integration.kind();
  }

  /** Whether the kind runs this object at all ({@link Integration#manages}). */
  public boolean manages(T owner) {
    return integration.manages(owner);
  }

  public String workloadName(T owner) {
    return integration.workloadName(owner);
  }

  /** The owner is gone: its Workload goes at once, without waiting for the garbage collector. */
  public void deleted(KubernetesClient client, T owner) {
    client
        .resources(Workload.class)
        .inNamespace(owner.getMetadata().getNamespace())
        .withName(integration.workloadName(owner))
        .delete();
  }

  public void reconcile(KubernetesClient client, T owner, Optional<Workload> found) {
    reconcile(client, owner, found, created -> {});
  }

  /**
   * Reconciles {@code owner} with the Workload its informer {@code found}; a Workload created here
   * goes to {@code created}, for the caller to put in that informer's cache: the owner's next event
   * can come before the Workload's (the Job controller writes a new Job's status at once), and a
   * reconcile that still found none would create it again, to be refused as AlreadyExists (3,901
   * refused creates for 10,000 Jobs in the KWOK scale benchmark).
   */
  public void reconcile(
      KubernetesClient client, T owner, Optional<Workload> found, Consumer<Workload> created) {
    Optional<Integration.Finish> finished = integration.finished(owner);
    if (found.isEmpty()) {
      if (finished.isEmpty()) {
        withoutWorkload(client, owner, created);
      }
      return;
    }
    Workload workload = found.get();
    if (finished.isPresent()) {
      finish(client, owner, workload, finished.get());
    } else if (StatusConditions.isFinished(workload)) {
      return;
    } else if (StatusConditions.isTrue(workload, StatusConditions.EVICTED)
        && StatusConditions.hasQuotaReserved(workload)) {
      // Evicted stays True on the requeued workload until it is admitted again (as in Kueue).
      evict(client, owner, workload);
    } else if (!PodSetsMatch.of(integration.podSets(owner), workload.getSpec().podSets)) {
      requeueAtNewSize(client, owner, workload);
    } else if (StatusConditions.hasQuotaReserved(workload)
        && StatusConditions.isTrue(workload, StatusConditions.ADMITTED)) {
      // Admitted: quota reserved and every admission check Ready.
      if (integration.isSuspended(owner) || !podsReady) {
        start(client, owner, workload);
      } else {
        PodsReadyCondition.sync(client, integration, owner, workload, events, clock.instant());
      }
    } else if (StatusConditions.hasQuotaReserved(workload)) {
      if (!integration.isSuspended(owner)) {
        suspend(
            client,
            owner,
            "quota reserved, but its Workload's admission checks are not all" + " Ready");
      }
    } else if (!integration.isSuspended(owner)) {
      suspend(client, owner, "not admitted: its Workload waits for quota");
    }
  }

  private void withoutWorkload(KubernetesClient client, T owner, Consumer<Workload> created) {
    if (!integration.isSuspended(owner)) {
      // Running without admission: created around the webhook, or its Workload was deleted.
      suspend(
          client,
          owner,
          "a managed " + integration.kind() + " runs only once its Workload is admitted");
      return;
    }
    Workload workload = integration.newWorkload(owner, priorities);
    String uncharged = devices.charge(client, workload);
    if (uncharged != null) {
      // Never run uncharged: no Workload, so the owner stays suspended until it is fixed.
      events.warning(owner, "InvalidWorkload", "Workload not created: " + uncharged);
      return;
    }
    try {
      created.accept(client.resource(workload).create());
      events.normal(
          owner, "CreatedWorkload", "Created Workload " + workload.getMetadata().getName());
    } catch (KubernetesClientException e) {
      if (ApiErrors.invalid(e)) {
        // The API server or webhook refused what this owner asks for: retrying cannot help; the
        // owner's next change is reconciled again. Say why where its author looks.
        events.warning(owner, "InvalidWorkload", "Workload not created: " + reason(e));
        return;
      }
      // AlreadyExists: the Workload is there (an earlier create whose reply was lost), and its
      // event brings the next reconcile. Any other refusal, a 409 Conflict included, created
      // nothing: thrown, so that the reconcile is retried (no later event of the owner may come).
      if (!ApiErrors.alreadyExists(e)) {
        throw e;
      }
    }
  }

  private static String reason(KubernetesClientException e) {
    return e.getStatus() != null && e.getStatus().getMessage() != null
        ? e.getStatus().getMessage()
        : e.getMessage();
  }

  private void start(KubernetesClient client, T owner, Workload workload) {
    if (!integration.isSuspended(owner)) {
      return;
    }
    // Starting is what spends the quota, and it was decided on the informer's copy of the
    // Workload, which can lag the API server behind the owner's (a watch that has gone quiet, a
    // replica's first list): a Workload since evicted and released would start its owner with no
    // quota held. The fault suite caught exactly that (a Job unsuspended 20 revisions after its
    // Workload was preempted and released, confirmed in etcd). So the stored Workload decides.
    Workload live = client.resource(workload).get();
    if (live == null || !holdsAdmission(live)) {
      return; // its newer version's event brings the next reconcile
    }
    ReadBack.write(
        client,
        integration.admitted(owner, live, flavors),
        started -> client.resource(started).update(),
        stored -> !integration.isSuspended(stored));
    events.normal(
        owner,
        "Started",
        "Admitted by ClusterQueue " + workload.getStatus().admission.clusterQueue);
  }

  /**
   * The owner was resized (or its requests changed): its Workload no longer says what it runs, so
   * it must not run under it. While it runs the webhook refuses such changes; one that got through
   * anyway (the webhook was unregistered, say) stops the owner, as Kueue does. Once it is suspended
   * and no pod of it is left, the Workload goes with any quota it held, and the next reconcile
   * creates one at the new size, queued anew.
   */
  private void requeueAtNewSize(KubernetesClient client, T owner, Workload workload) {
    if (!integration.isSuspended(owner)) {
      suspend(
          client,
          owner,
          "its pod sets no longer match Workload "
              + workload.getMetadata().getName()
              + ": stopped, to be requeued at its new size");
      return;
    }
    // Deleting a Workload that holds quota gives the quota back: as at the end of an eviction, only
    // once the Job controller has acknowledged the suspension.
    boolean holdsQuota = StatusConditions.hasQuotaReserved(workload);
    if (holdsQuota && integration.awaitsStopRequest(owner)) {
      requestStop(client, owner);
      return;
    }
    if (integration.activePods(owner) > 0 || !stoppedLive(client, owner, false, holdsQuota)) {
      return; // the status update that counts the last pod gone brings us back
    }
    client.resource(workload).delete();
    events.normal(
        owner,
        "Requeued",
        "Its pod sets changed while suspended: Workload "
            + workload.getMetadata().getName()
            + " removed, a new one is queued at the new size");
  }

  private List<Pod> pods(KubernetesClient client, T owner) {
    Map<String, String> labels = integration.podLabels(owner);
    if (labels.isEmpty()) {
      return List.of();
    }
    return client
        .pods()
        .inNamespace(owner.getMetadata().getNamespace())
        .withLabels(labels)
        .list()
        .getItems();
  }

  /**
   * The status write that clears a suspended owner's start time and asks its controller to
   * acknowledge the suspension ({@link Integration#stopRequested}), once its pods are all counted.
   */
  private void requestStop(KubernetesClient client, T owner) {
    // The pods are read live after the owner, and the write below carries the owner's version:
    // see JobAdapter.hasPodsToCount for why that is enough. It waits for the count even with no
    // start time left: the Job controller clears the start time itself when it sets Suspended=True
    // again (MutableSchedulingDirectivesForSuspendedJobs), and the release waits for it anyway.
    integration
        .stopRequest(owner, pods(client, owner))
        .ifPresent(status -> client.resource(status).updateStatus());
  }

  /** The owner's child Jobs ({@link Integration#childJobLabels}), read live. */
  private List<Job> childJobs(KubernetesClient client, T owner) {
    Map<String, String> labels = integration.childJobLabels(owner);
    if (labels.isEmpty()) {
      return List.of();
    }
    return client
        .batch()
        .v1()
        .jobs()
        .inNamespace(owner.getMetadata().getNamespace())
        .withLabels(labels)
        .list()
        .getItems();
  }

  private void evict(KubernetesClient client, T owner, Workload workload) {
    // The API server lets a Job's template change only while it is suspended and has no start
    // time, so eviction is up to three writes before the release: suspend; clear the start time
    // and ask the Job controller to acknowledge the suspension (one status write); restore.
    if (!integration.isSuspended(owner)) {
      suspend(client, owner, "its Workload was evicted: " + evictionMessage(workload));
      return;
    }
    Optional<T> finishable = integration.startTimeToFinish(owner);
    if (finishable.isPresent()) {
      client.resource(finishable.get()).updateStatus();
      return;
    }
    if (integration.awaitsStopRequest(owner)) {
      requestStop(client, owner);
      return;
    }
    T restored = integration.restored(owner, workload);
    if (!Serialization.asJson(restored).equals(Serialization.asJson(withEmptyAnnotations(owner)))) {
      client.resource(restored).update();
      return;
    }
    if (integration.activePods(owner) > 0
        || !StatusConditions.hasQuotaReserved(workload)
        || !stoppedLive(client, owner, true, true)) {
      return;
    }
    // No pod runs any more: give the quota back and queue again with a new queue timestamp.
    Workload copy = Copies.deep(workload);
    WorkloadStatus status = copy.getStatus();
    var evicted = StatusConditions.find(status.conditions, StatusConditions.EVICTED).orElseThrow();
    var now = clock.instant();
    status.accumulatedPastExecutionTimeSeconds =
        dev.berth.operator.admission.ExecutionTimeLimit.accumulatedAt(workload, now.toEpochMilli());
    status.admission = null;
    boolean requeued = !Boolean.FALSE.equals(copy.getSpec().active);
    StatusConditions.set(
        status,
        StatusConditions.QUOTA_RESERVED,
        false,
        requeued ? "Requeued" : "Deactivated",
        dev.berth.engine.model.Explanation.oneLine(
            (requeued ? "requeued after " : "not requeued (deactivated) after ")
                + evicted.reason
                + ": "
                + evicted.message),
        now);
    StatusConditions.set(
        status,
        StatusConditions.ADMITTED,
        false,
        "NoReservation",
        "The workload has no reservation",
        now);
    StatusConditions.remove(status, StatusConditions.REQUEUED);
    // It no longer runs on idle capacity; its next admission says how it runs.
    StatusConditions.remove(status, StatusConditions.ON_IDLE_CAPACITY);
    // The next admission's pods must become ready anew (waitForPodsReady).
    StatusConditions.remove(status, StatusConditions.PODS_READY);
    if (requeued) {
      String requeueAt = status.requeueState == null ? null : status.requeueState.requeueAt;
      StatusConditions.set(
          status,
          StatusConditions.REQUEUED,
          true,
          evicted.reason,
          "Requeued after eviction"
              + (requeueAt == null ? "" : "; not reconsidered before " + requeueAt),
          now);
    }
    // The checks run again for the next reservation, as Kueue resets them.
    if (status.admissionChecks != null) {
      for (var check : status.admissionChecks) {
        if (!"Pending".equals(check.state)) {
          check.state = "Pending";
          check.lastTransitionTime = now.toString();
        }
        check.message = "Reset: the quota was released (" + evicted.reason + ")";
      }
    }
    client.resource(copy).updateStatus();
  }

  /** Admitted, and neither evicted nor finished: what may start an owner's pods. */
  public static boolean holdsAdmission(Workload wl) {
    return StatusConditions.hasQuotaReserved(wl)
        && StatusConditions.isTrue(wl, StatusConditions.ADMITTED)
        && !StatusConditions.isTrue(wl, StatusConditions.EVICTED)
        && !StatusConditions.isFinished(wl);
  }

  /**
   * Whether the stored owner is suspended with no pod left (and, if asked, no start time): checked
   * before its Workload's quota is given back, because the informer's copy of the owner can lag
   * Berth's own last write to it (a start whose event has not come back yet reads as still
   * suspended), and quota given back while its pods run is quota another workload takes twice. The
   * pods are listed too, after the owner: its status lags them (the Job controller writes {@code
   * active} only after the pods it created, so a Job suspended just after its start reads "no pod"
   * while one is bound and running; the fault suite's watcher found such releases, confirmed in
   * etcd). And where quota is given back, the owner's controller must have {@code acknowledged} the
   * suspension first: a pod it is still creating from a copy of the Job that reads running does not
   * exist yet, and no list finds it (the watcher found one bound 9 revisions after the release). A
   * JobSet's pods are run by its child Jobs, so they are read live too, and each must be stopped
   * and acknowledged in the same way (its counts in the informer lag as a Job's status does).
   */
  private boolean stoppedLive(
      KubernetesClient client, T owner, boolean withoutStartTime, boolean acknowledged) {
    T live = client.resource(owner).get();
    if (live == null) {
      return false;
    }
    // Listed after the owner, and its pods after them: a child Job's acknowledgment read here
    // means every pod it will create exists for the list below.
    List<Job> children = childJobs(client, live);
    return integration.isSuspended(live)
        && !(acknowledged && !integration.suspensionAcknowledged(live, children))
        && integration.activePods(live) == 0
        && integration.activePods(live, children) == 0
        && !(withoutStartTime && integration.hasStartTime(live))
        && !integration.hasPodsToCount(live, pods(client, live));
  }

  private T withEmptyAnnotations(T owner) {
    T copy = Copies.deep(owner);
    if (copy.getMetadata().getAnnotations() == null) {
      copy.getMetadata().setAnnotations(new java.util.LinkedHashMap<>());
    }
    return copy;
  }

  private void finish(
      KubernetesClient client, T owner, Workload workload, Integration.Finish finish) {
    if (StatusConditions.isFinished(workload)) {
      return;
    }
    ReadBack.write(
        client,
        finished(workload, finish, clock.instant()),
        finished -> client.resource(finished).updateStatus(),
        StatusConditions::isFinished);
    events.normal(owner, "Finished", "Workload finished: " + finish.message());
  }

  /**
   * A copy of {@code workload} marked Finished ({@code finish}'s outcome and message), to be
   * written to its status; its quota is released by that write.
   */
  public static Workload finished(Workload workload, Integration.Finish finish, Instant now) {
    Workload copy = Copies.deep(workload);
    WorkloadStatus status = copy.getStatus() == null ? new WorkloadStatus() : copy.getStatus();
    copy.setStatus(status);
    StatusConditions.set(
        status,
        StatusConditions.FINISHED,
        true,
        finish.succeeded() ? "Succeeded" : "Failed",
        finish.message(),
        now);
    // The wide columns show QuotaReserved's reason: a finished workload reads as finished. The
    // status stays as it was (the usage ledger reads its transition time).
    StatusConditions.set(
        status,
        StatusConditions.QUOTA_RESERVED,
        StatusConditions.isTrue(copy, StatusConditions.QUOTA_RESERVED),
        "Finished",
        dev.berth.engine.model.Explanation.oneLine(
            "finished ("
                + (finish.succeeded() ? "Succeeded" : "Failed")
                + "), quota released: "
                + finish.message()),
        now);
    return copy;
  }

  private void suspend(KubernetesClient client, T owner, String why) {
    if (integration.stoppedByDeletion()) {
      if (owner.getMetadata().getDeletionTimestamp() == null) {
        client.resource(owner).delete();
        events.warning(owner, "Stopped", why + "; deleted");
      }
      return;
    }
    ReadBack.write(
        client,
        integration.suspended(owner),
        suspended -> client.resource(suspended).update(),
        integration::isSuspended);
    events.warning(owner, "Suspended", why);
  }

  private static String evictionMessage(Workload workload) {
    return StatusConditions.find(workload.getStatus().conditions, StatusConditions.EVICTED)
        .map(c -> c.message)
        .orElse("evicted");
  }
}
