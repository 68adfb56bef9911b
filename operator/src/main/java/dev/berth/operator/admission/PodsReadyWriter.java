package dev.berth.operator.admission;

import dev.berth.api.v1beta1.Workload;
import dev.berth.api.v1beta1.WorkloadStatus;
import dev.berth.engine.checks.PodsReadyTimeout;
import dev.berth.operator.WaitForPodsReady;
import dev.berth.operator.events.EventRecorder;
import dev.berth.operator.kube.ApiErrors;
import dev.berth.operator.kube.Copies;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Instant;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link DecisionWriter}'s part for waitForPodsReady, on the loop thread: an admitted workload
 * whose pods are not ready by its deadline is evicted with reason PodsReadyTimeout and requeued at
 * {@code status.requeueState.requeueAt} (the Job is suspended and the quota released by the usual
 * eviction path), or, once its requeues are used up, deactivated. Each write carries the
 * resourceVersion the deadline was read from.
 */
final class PodsReadyWriter {
  private static final Logger log = LoggerFactory.getLogger(PodsReadyWriter.class);

  /** The Evicted reason of a workload whose pods were not ready in time, as in Kueue. */
  static final String TIMEOUT = "PodsReadyTimeout";

  /** The Evicted reason of a workload deactivated after backoffLimitCount requeues. */
  static final String LIMIT_EXCEEDED = "RequeuingLimitExceeded";

  private final KubernetesClient client;
  private final EventRecorder events;
  private final MeterRegistry registry;
  private final WaitForPodsReady settings;

  PodsReadyWriter(
      KubernetesClient client,
      EventRecorder events,
      MeterRegistry registry,
      WaitForPodsReady settings) {
    this.client = client;
    this.events = events;
    this.registry = registry;
    this.settings = settings;
  }

  /** Evicts or deactivates every workload out of time; true when a write should be retried. */
  boolean enforce(ClusterState state, Instant now) {
    PodsReadyTracker tracker = state.podsReady();
    for (PodsReadyTracker.BecameReady r : tracker.takeBecameReady()) {
      DistributionSummary.builder("berth_admitted_until_ready_wait_time_seconds")
          .description("Time from admission until every pod of the workload was ready")
          .baseUnit("seconds")
          .publishPercentileHistogram()
          .tags("cluster_queue", r.clusterQueue())
          .register(registry)
          .record(r.millis() / 1000.0);
    }
    boolean retry = false;
    for (String uid : tracker.takeReactivated()) {
      retry |= resetRequeues(state, uid);
    }
    for (String uid : tracker.takeExpired(now.toEpochMilli())) {
      Workload latest = state.latestWorkload(uid).orElse(null);
      var deadline = latest == null ? java.util.OptionalLong.empty() : tracker.deadline(latest);
      if (deadline.isEmpty() || deadline.getAsLong() > now.toEpochMilli()) {
        continue; // ready meanwhile, or gone; a later version brings its own deadline
      }
      try {
        state.workloadWritten(timedOut(latest, state, now));
      } catch (KubernetesClientException e) {
        log.info(
            "PodsReady timeout of {} not written ({}); {}",
            DecisionWriter.name(latest),
            e.getCode(),
            ApiErrors.conflictOrGone(e) ? "a newer version decides" : "trying again");
        if (!ApiErrors.conflictOrGone(e)) {
          tracker.again(latest);
          retry = true;
        }
      }
    }
    return retry;
  }

  private Workload timedOut(Workload latest, ClusterState state, Instant now) {
    WorkloadStatus status = latest.getStatus();
    int previous =
        status.requeueState == null || status.requeueState.count == null
            ? 0
            : status.requeueState.count;
    String why = why(latest);
    var after =
        PodsReadyTimeout.afterTimeout(
            settings.backoff(),
            previous,
            now.toEpochMilli(),
            ThreadLocalRandom.current().nextDouble(-1, 1));
    Workload copy = Copies.deep(latest);
    String cq = status.admission.clusterQueue;
    if (after instanceof PodsReadyTimeout.Deactivate) {
      // Deactivated first; the deactivation path then evicts it (reason RequeuingLimitExceeded)
      // and the eviction path releases the quota without requeueing it.
      copy.getSpec().active = false;
      Workload written = client.resource(copy).update();
      state.podsReady().deactivatedForLimit(written.getMetadata().getUid());
      events.warning(
          written,
          LIMIT_EXCEEDED,
          why
              + "; requeued "
              + previous
              + " times already (backoffLimitCount "
              + settings.backoff().limitCount()
              + "): the workload is deactivated");
      return written;
    }
    var requeue = (PodsReadyTimeout.Requeue) after;
    copy.getStatus().requeueState = new WorkloadStatus.RequeueState();
    copy.getStatus().requeueState.count = requeue.count();
    copy.getStatus().requeueState.requeueAt = Instant.ofEpochMilli(requeue.requeueAt()).toString();
    String message =
        why
            + "; requeued at "
            + copy.getStatus().requeueState.requeueAt
            + " (attempt "
            + requeue.count()
            + ")";
    StatusConditions.set(copy.getStatus(), StatusConditions.EVICTED, true, TIMEOUT, message, now);
    DecisionWriter.evicting(copy, TIMEOUT, message, now);
    Workload written = client.resource(copy).updateStatus();
    events.warning(written, "Evicted", message);
    for (String name :
        new String[] {"berth_workload_requeues_total", "berth_evicted_workloads_total"}) {
      Counter.builder(name)
          .tags("cluster_queue", cq, "reason", TIMEOUT)
          .register(registry)
          .increment();
    }
    return written;
  }

  /** A reactivated workload starts over: no requeueState, and no longer marked Evicted. */
  private boolean resetRequeues(ClusterState state, String uid) {
    Workload latest = state.latestWorkload(uid).orElse(null);
    if (latest == null || !PodsReadyTracker.reactivatedAfterLimit(latest)) {
      return false;
    }
    Workload copy = Copies.deep(latest);
    copy.getStatus().requeueState = null;
    StatusConditions.remove(copy.getStatus(), StatusConditions.EVICTED);
    try {
      Workload written = client.resource(copy).updateStatus();
      state.workloadWritten(written);
      events.normal(
          written, "Reactivated", "Reactivated after " + LIMIT_EXCEEDED + ": requeue count reset");
      return false;
    } catch (KubernetesClientException e) {
      log.info(
          "requeueState of reactivated {} not reset ({})",
          DecisionWriter.name(latest),
          e.getCode());
      boolean retry = !ApiErrors.conflictOrGone(e);
      if (retry) {
        state.podsReady().resetAgain(uid);
      }
      return retry;
    }
  }

  /** What ran out: the timeout from admission, or the recovery timeout after losing readiness. */
  private String why(Workload wl) {
    var ready = StatusConditions.find(wl.getStatus().conditions, StatusConditions.PODS_READY);
    String pods = ready.map(c -> " (" + c.message + ")").orElse("");
    if (ready.map(c -> PodsReadyTimeout.WAIT_FOR_RECOVERY.equals(c.reason)).orElse(false)) {
      return "Pods not ready again within the waitForPodsReady recoveryTimeout of "
          + settings.recoveryTimeout().toSeconds()
          + "s"
          + pods;
    }
    return "Pods not all ready within the waitForPodsReady timeout of "
        + settings.timeout().toSeconds()
        + "s of admission"
        + pods;
  }

  /** The eviction message of a workload deactivated for too many PodsReady requeues. */
  static String limitMessage(Workload wl, WaitForPodsReady settings) {
    return "Deactivated after "
        + (wl.getStatus().requeueState == null ? 0 : wl.getStatus().requeueState.count)
        + " PodsReadyTimeout requeues (backoffLimitCount "
        + settings.backoff().limitCount()
        + ")";
  }
}
