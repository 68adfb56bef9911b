package dev.berth.operator.admission;

import dev.berth.api.v1beta1.PodSetAssignment;
import dev.berth.api.v1beta1.Workload;
import dev.berth.api.v1beta1.WorkloadStatus;
import dev.berth.engine.Admission;
import dev.berth.engine.CycleResult;
import dev.berth.engine.Eviction;
import dev.berth.operator.events.EventRecorder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a cycle's decisions to the Workloads. Every write is an update of the status subresource
 * carrying the resourceVersion the engine decided on: if the Workload changed meanwhile, the API
 * server refuses it, the admission is rolled back in the engine, and the newer version (already on
 * its way as a watch event) is decided again. No blind write, so no double admission.
 *
 * <p>A write whose outcome is unknown (no reply, or a 5xx the server may have sent after applying
 * it) is not rolled back blindly: the Workload is read back first ({@link AdmissionReadBack}), and
 * until a read succeeds the engine keeps the quota reserved. Evictions the engine still expects
 * come with every cycle and are written until the Workload shows Evicted.
 */
public final class DecisionWriter {
  private static final Logger log = LoggerFactory.getLogger(DecisionWriter.class);

  private final KubernetesClient client;
  private final EventRecorder events;
  private final Clock clock;
  private final MeterRegistry registry;

  /** Admissions whose write has an unknown outcome, with the version they were written against. */
  private final Map<String, Unresolved> unresolved = new LinkedHashMap<>();

  /** Admission checks: the reservation's entries, then Admitted, Retry or Rejected. */
  private final CheckGateWriter checkGate;

  /** waitForPodsReady: PodsReadyTimeout evictions, requeues and deactivations. */
  private final PodsReadyWriter podsReady;

  private final dev.berth.operator.WaitForPodsReady podsReadySettings;

  private record Unresolved(Admission admission, Workload decidedOn) {}

  public DecisionWriter(
      KubernetesClient client, EventRecorder events, Clock clock, MeterRegistry registry) {
    this(client, events, clock, registry, dev.berth.engine.checks.RequeueBackoff.DEFAULT);
  }

  /** With the requeuing backoff that paces a check's Retry. */
  public DecisionWriter(
      KubernetesClient client,
      EventRecorder events,
      Clock clock,
      MeterRegistry registry,
      dev.berth.engine.checks.RequeueBackoff backoff) {
    this(
        client,
        events,
        clock,
        registry,
        dev.berth.operator.WaitForPodsReady.DEFAULT.withBackoff(backoff),
        new CheckBackoffs());
  }

  /**
   * With waitForPodsReady (its requeuing backoff also paces a check's Retry); checks listed in
   * {@code checkBackoffs} pace their Retry with their own.
   */
  public DecisionWriter(
      KubernetesClient client,
      EventRecorder events,
      Clock clock,
      MeterRegistry registry,
      dev.berth.operator.WaitForPodsReady podsReady,
      CheckBackoffs checkBackoffs) {
    this.checkGate =
        new CheckGateWriter(client, events, registry, podsReady.backoff(), checkBackoffs);
    this.podsReady = new PodsReadyWriter(client, events, registry, podsReady);
    this.podsReadySettings = podsReady;
    this.client = client;
    this.events = events;
    this.clock = clock;
    this.registry = registry;
  }

  /** Returns true when a write failed for a reason other than a conflict and should be retried. */
  public boolean apply(CycleResult result, ClusterState state) {
    boolean retry = false;
    Instant now = clock.instant();
    retry |= resolveUnresolved(state);
    for (Admission admission : result.admissions()) {
      try {
        retry |= admit(admission, state, now);
      } catch (RuntimeException e) {
        // Failed before the write was sent (building the status): nothing reached the server.
        log.error("admission of {} not written; rolled back", admission.name(), e);
        state.engine().rollback(admission);
        retry = true;
      }
    }
    for (ClusterState.OverQuota over : state.takeOverQuota()) {
      reportOverQuota(over);
    }
    for (Eviction eviction : result.evictions()) {
      try {
        retry |=
            eviction.preemptionReason() != null
                ? preempt(eviction, state, now)
                : evict(
                    eviction.workloadUid(),
                    eviction.reason().name(),
                    eviction.message(),
                    state,
                    now);
      } catch (RuntimeException e) {
        log.error("eviction of {} not written; asked again next cycle", eviction.workloadUid(), e);
        retry = true;
      }
    }
    retry |= checkGate.settle(state, now);
    for (String uid : state.takeOutOfTime(now.toEpochMilli())) {
      retry |= deactivateOutOfTime(uid, state, now);
    }
    retry |= podsReady.enforce(state, now);
    try {
      for (String uid : state.takeDeactivated()) {
        var latest = state.latestWorkload(uid);
        var rejected = latest.flatMap(CheckGateWriter::rejection);
        if (rejected.isPresent()) {
          retry |= evict(uid, "AdmissionCheck", rejected.get(), state, now);
        } else if (latest.isPresent() && state.podsReady().takeLimitExceeded(uid)) {
          retry |=
              evict(
                  uid,
                  PodsReadyWriter.LIMIT_EXCEEDED,
                  PodsReadyWriter.limitMessage(latest.get(), podsReadySettings),
                  state,
                  now);
        } else if (latest.isPresent()
            && ExecutionTimeLimit.exceeded(latest.get(), now.toEpochMilli())) {
          retry |=
              evict(
                  uid,
                  ExecutionTimeLimit.REASON,
                  ExecutionTimeLimit.message(latest.get()) + "; the workload is deactivated",
                  state,
                  now);
        } else {
          retry |=
              evict(
                  uid,
                  "Deactivated",
                  "The workload was deactivated (spec.active=false)",
                  state,
                  now);
        }
      }
    } catch (RuntimeException e) {
      log.error("deactivations not written; trying again", e);
      retry = true;
    }
    return retry || !unresolved.isEmpty();
  }

  /** An admission seen on the API server left its quota exceeded: say so, loudly. */
  private void reportOverQuota(ClusterState.OverQuota over) {
    Workload wl = over.workload();
    String cq = wl.getStatus().admission.clusterQueue;
    List<String> victims = over.evictions().stream().map(Eviction::workloadUid).toList();
    events.warning(
        wl,
        "OverQuota",
        "Admission observed in ClusterQueue "
            + cq
            + " exceeds its quota; evicting the newest"
            + " admissions (UIDs "
            + String.join(", ", victims)
            + ")");
    Counter.builder("berth_over_quota_admissions_total")
        .description("Admissions seen on the API server that left their ClusterQueue over quota")
        .tags("cluster_queue", cq)
        .register(registry)
        .increment();
  }

  /** Reads back the Workloads of admissions with an unknown outcome; true while one stays so. */
  private boolean resolveUnresolved(ClusterState state) {
    for (Unresolved u : List.copyOf(unresolved.values())) {
      String uid = u.admission().workloadUid();
      if (!state.engine().admission(uid).equals(java.util.Optional.of(u.admission()))) {
        // An event decided it meanwhile (the admitted version arrived, or a newer pending one).
        unresolved.remove(uid);
        continue;
      }
      resolve(u, state);
    }
    return !unresolved.isEmpty();
  }

  /** Decides an admission write of unknown outcome from the Workload as stored now. */
  private void resolve(Unresolved u, ClusterState state) {
    Admission admission = u.admission();
    Workload read;
    try {
      read =
          client
              .resources(Workload.class)
              .inNamespace(admission.namespace())
              .withName(admission.name())
              .get();
    } catch (KubernetesClientException e) {
      unresolved.put(admission.workloadUid(), u);
      log.warn(
          "admission of {}/{} has an unknown outcome and the read-back failed ({}); quota kept"
              + " reserved until it can be read",
          admission.namespace(),
          admission.name(),
          e.getCode());
      return;
    }
    unresolved.remove(admission.workloadUid());
    if (read != null && !read.getMetadata().getUid().equals(admission.workloadUid())) {
      read = null;
    }
    AdmissionReadBack outcome = AdmissionReadBack.of(admission, u.decidedOn(), read);
    log.info(
        "admission of {}/{} with unknown outcome read back: {}",
        admission.namespace(),
        admission.name(),
        outcome);
    if (outcome == AdmissionReadBack.WRITTEN) {
      state.workload(read);
      admitted(read, admission);
      return;
    }
    state.engine().rollback(admission);
    if (read != null) {
      state.workload(read);
    }
  }

  private boolean admit(Admission admission, ClusterState state, Instant now) {
    Workload latest = state.latestWorkload(admission.workloadUid()).orElse(null);
    if (latest == null) {
      state.engine().rollback(admission);
      return false;
    }
    Workload copy = Serialization.clone(latest);
    WorkloadStatus status = copy.getStatus() == null ? new WorkloadStatus() : copy.getStatus();
    copy.setStatus(status);
    status.admission = new dev.berth.api.v1beta1.Admission();
    status.admission.clusterQueue = admission.clusterQueue();
    status.admission.podSetAssignments = new ArrayList<>();
    for (var ps : admission.podSetAssignments()) {
      PodSetAssignment out = new PodSetAssignment();
      out.name = ps.name();
      out.flavors = new LinkedHashMap<>(ps.flavors());
      Map<String, Quantity> usage = new LinkedHashMap<>();
      ps.formattedUsage().forEach((r, q) -> usage.put(r, new Quantity(q)));
      out.resourceUsage = usage;
      out.count = ps.count();
      out.topologyAssignment = TopologyTranslator.toApi(ps.topologyAssignment());
      status.admission.podSetAssignments.add(out);
    }
    String message = "Quota reserved in ClusterQueue " + admission.clusterQueue();
    StatusConditions.set(
        status, StatusConditions.QUOTA_RESERVED, true, "QuotaReserved", message, now);
    List<String> checks =
        AdmissionCheckTracker.applicable(
            state.clusterQueues.get(admission.clusterQueue()), flavorsOf(admission));
    checkGate.reserve(status, checks, state.checks().known(), admission.borrows(), now);
    StatusConditions.remove(status, StatusConditions.EVICTED);
    StatusConditions.remove(status, StatusConditions.PREEMPTED);
    Workload written;
    try {
      written = client.resource(copy).updateStatus();
    } catch (KubernetesClientException e) {
      if (outcomeUnknown(e)) {
        // The server may have applied it: read it back before giving the quota to anyone else.
        log.warn(
            "admission of {} has an unknown outcome ({}: {}); reading it back",
            name(latest),
            e.getCode(),
            e.getMessage());
        resolve(new Unresolved(admission, latest), state);
        return true;
      }
      state.engine().rollback(admission);
      if (e.getCode() != 429) {
        // 409: a newer version is on its way and will be decided again; 404: it is gone; other
        // 4xx: retrying the same write cannot help, the next event decides again.
        log.info("admission of {} not written ({}); rolled back", name(latest), e.getCode());
        return false;
      }
      log.warn(
          "admission of {} not written: {}; rolled back, will retry", name(latest), e.getMessage());
      return true;
    } catch (RuntimeException e) {
      // Not the API server's answer (an I/O failure the client did not wrap): outcome unknown.
      log.warn(
          "admission of {} has an unknown outcome ({}); reading it back",
          name(latest),
          e.toString());
      resolve(new Unresolved(admission, latest), state);
      return true;
    }
    state.workload(written);
    admitted(written, admission);
    return false;
  }

  /**
   * Maximum execution time used up: deactivated (spec.active=false), then evicted with reason
   * MaximumExecutionTimeExceeded by the deactivation path, so it is never requeued.
   */
  private boolean deactivateOutOfTime(String uid, ClusterState state, Instant now) {
    Workload latest = state.latestWorkload(uid).orElse(null);
    if (latest == null
        || Boolean.FALSE.equals(latest.getSpec().active)
        || !ExecutionTimeLimit.exceeded(latest, now.toEpochMilli())) {
      return false;
    }
    Workload copy = Serialization.clone(latest);
    copy.getSpec().active = false;
    try {
      Workload written = client.resource(copy).update();
      state.workload(written);
      events.warning(
          written,
          ExecutionTimeLimit.REASON,
          ExecutionTimeLimit.message(written) + "; deactivating it");
      return false;
    } catch (KubernetesClientException e) {
      log.info(
          "deactivation of {} (maximum execution time) not written ({})",
          name(latest),
          e.getCode());
      if (retryable(e)) {
        state.outOfTimeAgain(uid);
      }
      return retryable(e);
    }
  }

  /** No reply, or a server error that may come after the write was applied. */
  static boolean outcomeUnknown(KubernetesClientException e) {
    return e.getCode() <= 0 || e.getCode() >= 500;
  }

  private void admitted(Workload written, Admission admission) {
    events.normal(
        written, "QuotaReserved", "Quota reserved in ClusterQueue " + admission.clusterQueue());
    if (StatusConditions.isTrue(written, StatusConditions.ADMITTED)) {
      events.normal(written, "Admitted", "Admitted by ClusterQueue " + admission.clusterQueue());
    } else {
      events.normal(
          written,
          "AdmissionChecksPending",
          StatusConditions.find(written.getStatus().conditions, StatusConditions.ADMITTED)
              .map(c -> c.message)
              .orElse("waiting for admission checks"));
    }
    for (var ps : admission.podSetAssignments()) {
      if (ps.topologyAssignment() != null) {
        events.normal(
            written,
            "TopologyAssigned",
            TopologyTranslator.summary(ps.name(), ps.topologyAssignment()));
      }
    }
  }

  /** Returns true when the write failed and should be tried again soon. */
  private boolean evict(
      String uid, String reason, String message, ClusterState state, Instant now) {
    Workload latest = state.latestWorkload(uid).orElse(null);
    if (latest == null || StatusConditions.isTrue(latest, StatusConditions.EVICTED)) {
      return false;
    }
    Workload copy = Serialization.clone(latest);
    StatusConditions.set(copy.getStatus(), StatusConditions.EVICTED, true, reason, message, now);
    evicting(copy, reason, message, now);
    try {
      Workload written = client.resource(copy).updateStatus();
      state.workload(written);
      events.warning(written, "Evicted", message);
      if ("Deactivated".equals(reason) || PodsReadyWriter.LIMIT_EXCEEDED.equals(reason)) {
        // Engine evictions are counted from the cycle result; deactivation is the writer's own.
        Counter.builder("berth_evicted_workloads_total")
            .tags("cluster_queue", latest.getStatus().admission.clusterQueue, "reason", reason)
            .register(registry)
            .increment();
      }
      return false;
    } catch (KubernetesClientException e) {
      log.info(
          "eviction of {} not written ({}); asked again next cycle", name(latest), e.getCode());
      return retryable(e);
    }
  }

  /**
   * The wide columns show QuotaReserved's reason: while it is evicted the workload reads as such.
   * The quota stays reserved (status True) until its pods are gone.
   */
  static void evicting(Workload copy, String reason, String message, Instant now) {
    StatusConditions.set(
        copy.getStatus(),
        StatusConditions.QUOTA_RESERVED,
        true,
        "Preempted".equals(reason) ? "Preempted" : "Evicted",
        dev.berth.engine.model.Explanation.oneLine(
            "evicted (" + reason + "), quota held until its pods stop: " + message),
        now);
  }

  /** A conflict or a missing object brings its own event; anything else needs a timed retry. */
  private static boolean retryable(KubernetesClientException e) {
    return e.getCode() != 409 && e.getCode() != 404;
  }

  /** Evicted with reason Preempted, and a Preempted condition saying why and by whom. */
  private boolean preempt(Eviction eviction, ClusterState state, Instant now) {
    Workload latest = state.latestWorkload(eviction.workloadUid()).orElse(null);
    if (latest == null || StatusConditions.isTrue(latest, StatusConditions.EVICTED)) {
      return false;
    }
    String preemptor =
        state
            .latestWorkload(eviction.preemptorUid())
            .map(DecisionWriter::name)
            .orElse(eviction.preemptorUid());
    String why =
        "Preempted to accommodate "
            + preemptor
            + " ("
            + eviction.preemptionReason()
            + "): "
            + eviction.message();
    Workload copy = Serialization.clone(latest);
    StatusConditions.set(
        copy.getStatus(), StatusConditions.EVICTED, true, eviction.reason().name(), why, now);
    StatusConditions.set(
        copy.getStatus(),
        StatusConditions.PREEMPTED,
        true,
        eviction.preemptionReason().name(),
        why,
        now);
    evicting(copy, "Preempted", why, now);
    try {
      Workload written = client.resource(copy).updateStatus();
      state.workload(written);
      events.warning(written, "Preempted", why);
      return false;
    } catch (KubernetesClientException e) {
      log.info(
          "preemption of {} not written ({}); asked again next cycle", name(latest), e.getCode());
      return retryable(e);
    }
  }

  private static java.util.Set<String> flavorsOf(Admission admission) {
    java.util.Set<String> flavors = new java.util.LinkedHashSet<>();
    for (var ps : admission.podSetAssignments()) {
      flavors.addAll(ps.flavors().values());
    }
    return flavors;
  }

  static String name(Workload wl) {
    return wl.getMetadata().getNamespace() + "/" + wl.getMetadata().getName();
  }
}
