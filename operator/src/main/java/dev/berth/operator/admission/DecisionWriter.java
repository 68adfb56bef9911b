package dev.berth.operator.admission;

import dev.berth.api.v1beta1.PodSetAssignment;
import dev.berth.api.v1beta1.Workload;
import dev.berth.api.v1beta1.WorkloadStatus;
import dev.berth.engine.Admission;
import dev.berth.engine.CycleResult;
import dev.berth.engine.Eviction;
import dev.berth.operator.events.EventRecorder;
import dev.berth.operator.kube.ApiErrors;
import dev.berth.operator.kube.Copies;
import dev.berth.operator.kube.StatusWrite;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a cycle's decisions to the Workloads. Every write is an update of the status subresource
 * carrying the resourceVersion the engine decided on: if the Workload changed meanwhile, the API
 * server refuses it, the admission is rolled back in the engine, and the newer version (already on
 * its way as a watch event) is decided again. No blind write, so no double admission.
 *
 * <p>Admissions, evictions and preemptions are handed to the {@link WritePool} and {@link #apply}
 * returns at once: the engine already holds an admission as tentative, so the next cycle decides on
 * it while the write is on the wire; the write's result comes back to the loop thread, where a
 * refusal rolls it back. A write the pool has no room for is rolled back (an admission) or asked
 * again by the next cycle (an eviction), and a cycle is asked for after a pause.
 *
 * <p>A write whose outcome is unknown (no reply, or a 5xx the server may have sent after applying
 * it) is not rolled back blindly: the Workload is read back first ({@link AdmissionReadBack}), and
 * until a read succeeds the engine keeps the quota reserved. Evictions the engine still expects
 * come with every cycle and are written until the Workload shows Evicted.
 */
public final class DecisionWriter {
  private static final Logger log = LoggerFactory.getLogger(DecisionWriter.class);

  private final KubernetesClient client;
  private final StatusWrite statusWrite;
  private final EventRecorder events;
  private final Clock clock;
  private final MeterRegistry registry;
  private final AdmittedMetrics admittedMetrics;

  /** Admissions whose write has an unknown outcome, with the version they were written against. */
  private final Map<String, Unresolved> unresolved = new LinkedHashMap<>();

  /** Admission checks: the reservation's entries, then Admitted, Retry or Rejected. */
  private final CheckGateWriter checkGate;

  /** waitForPodsReady: PodsReadyTimeout evictions, requeues and deactivations. */
  private final PodsReadyWriter podsReady;

  private final dev.berth.operator.WaitForPodsReady podsReadySettings;

  /** Sends the admission, eviction and read-back writes off the loop thread. */
  private final WritePool pool;

  /** A write came back failed in a way only a timed retry mends (429, 5xx, no reply, no room). */
  private boolean retryAsked;

  private record Unresolved(Admission admission, Workload decidedOn) {}

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
      CheckBackoffs checkBackoffs,
      WritePool pool,
      StatusWrite statusWrite) {
    this.pool = pool;
    this.statusWrite = statusWrite;
    this.admittedMetrics = new AdmittedMetrics(registry);
    this.checkGate =
        new CheckGateWriter(
            client, events, registry, admittedMetrics, podsReady.backoff(), checkBackoffs);
    this.podsReady = new PodsReadyWriter(client, events, registry, podsReady);
    this.podsReadySettings = podsReady;
    this.client = client;
    this.events = events;
    this.clock = clock;
    this.registry = registry;
  }

  public WritePool pool() {
    return pool;
  }

  /**
   * Hands a cycle's decisions to the writers and returns at once. Returns true when a write failed
   * for a reason other than a conflict (or is still unresolved, or found no room) and a cycle
   * should run again after a pause.
   */
  public boolean apply(CycleResult result, ClusterState state) {
    boolean retry = retryAsked;
    retryAsked = false;
    Instant now = clock.instant();
    retry |= resolveUnresolved(state);
    for (Admission admission : result.admissions()) {
      boolean queued =
          pool.submit(
              admission.workloadUid(),
              () -> {
                try {
                  return admit(admission, state, now);
                } catch (RuntimeException e) {
                  // Failed before the write was sent (building the status): nothing was sent.
                  log.error("admission of {} not written; rolled back", admission.name(), e);
                  rollbackIfHeld(admission, state);
                  retryAsked = true;
                  return null;
                }
              });
      if (!queued) {
        // No room among the writers: decided again once there is.
        log.debug("admission of {} rolled back: the writers are full", admission.name());
        rollbackIfHeld(admission, state);
        retry = true;
      }
    }
    for (ClusterState.OverQuota over : state.takeOverQuota()) {
      reportOverQuota(over);
    }
    for (Eviction eviction : result.evictions()) {
      if (pool.busy(eviction.workloadUid())) {
        continue; // asked again by the cycle the write's result brings
      }
      try {
        retry |=
            eviction.preemptionReason() != null
                ? preempt(eviction, state, now)
                : evict(
                    eviction.workloadUid(),
                    eviction.reason().name(),
                    eviction.message(),
                    state,
                    now,
                    false);
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
          retry |= evict(uid, "AdmissionCheck", rejected.get(), state, now, true);
        } else if (latest.isPresent() && state.podsReady().takeLimitExceeded(uid)) {
          retry |=
              evict(
                  uid,
                  PodsReadyWriter.LIMIT_EXCEEDED,
                  PodsReadyWriter.limitMessage(latest.get(), podsReadySettings),
                  state,
                  now,
                  true);
        } else if (latest.isPresent()
            && ExecutionTimeLimit.exceeded(latest.get(), now.toEpochMilli())) {
          retry |=
              evict(
                  uid,
                  ExecutionTimeLimit.REASON,
                  ExecutionTimeLimit.message(latest.get()) + "; the workload is deactivated",
                  state,
                  now,
                  true);
        } else {
          retry |=
              evict(
                  uid,
                  "Deactivated",
                  "The workload was deactivated (spec.active=false)",
                  state,
                  now,
                  true);
        }
      }
    } catch (RuntimeException e) {
      log.error("deactivations not written; trying again", e);
      retry = true;
    }
    return retry || !unresolved.isEmpty();
  }

  /** Gives the quota back if the engine still holds this very admission. */
  private static void rollbackIfHeld(Admission admission, ClusterState state) {
    if (holds(admission, state)) {
      state.engine().rollback(admission);
    }
  }

  private static boolean holds(Admission admission, ClusterState state) {
    return state
        .engine()
        .admission(admission.workloadUid())
        .equals(java.util.Optional.of(admission));
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

  /**
   * Reads back the Workloads of admissions with an unknown outcome (on the writers); true while one
   * stays so. Until a read succeeds, the engine keeps the quota reserved.
   */
  private boolean resolveUnresolved(ClusterState state) {
    for (Unresolved u : List.copyOf(unresolved.values())) {
      String uid = u.admission().workloadUid();
      if (!holds(u.admission(), state)) {
        // An event decided it meanwhile (the admitted version arrived, or a newer pending one).
        unresolved.remove(uid);
        continue;
      }
      if (!pool.busy(uid)) {
        pool.submit(uid, () -> holds(u.admission(), state) ? () -> resolve(u) : null);
      }
    }
    return !unresolved.isEmpty();
  }

  /**
   * Reads back an admission write of unknown outcome (writer thread); returns its verdict for the
   * loop thread, where it is applied only if the engine still holds that admission.
   */
  private Consumer<ClusterState> resolve(Unresolved u) {
    Admission admission = u.admission();
    Workload fetched;
    try {
      fetched =
          client
              .resources(Workload.class)
              .inNamespace(admission.namespace())
              .withName(admission.name())
              .get();
    } catch (KubernetesClientException e) {
      log.warn(
          "admission of {}/{} has an unknown outcome and the read-back failed ({}); quota kept"
              + " reserved until it can be read",
          admission.namespace(),
          admission.name(),
          e.getCode());
      return s -> {
        if (holds(admission, s)) {
          unresolved.put(admission.workloadUid(), u);
        }
        retryAsked = true;
      };
    }
    Workload read =
        fetched != null && fetched.getMetadata().getUid().equals(admission.workloadUid())
            ? fetched
            : null;
    AdmissionReadBack outcome = AdmissionReadBack.of(admission, u.decidedOn(), read);
    log.info(
        "admission of {}/{} with unknown outcome read back: {}",
        admission.namespace(),
        admission.name(),
        outcome);
    return s -> {
      unresolved.remove(admission.workloadUid());
      if (!holds(admission, s)) {
        // Decided meanwhile by a newer version the loop saw; the read adds what is newer.
        if (read != null) {
          s.workloadWritten(read);
        }
        return;
      }
      if (outcome == AdmissionReadBack.WRITTEN) {
        s.workloadWritten(read);
        admitted(read, admission);
        return;
      }
      s.engine().rollback(admission);
      if (read != null) {
        s.workloadWritten(read);
      }
    };
  }

  /**
   * Prepares the admission's write on the loop thread, from the version the engine decided on (or
   * that version with the loop's own pending condition on it); null when the engine no longer holds
   * it (an event decided it meanwhile).
   */
  private WritePool.Write admit(Admission admission, ClusterState state, Instant now) {
    if (!holds(admission, state)) {
      return null;
    }
    Workload latest = state.latestWorkload(admission.workloadUid()).orElse(null);
    if (latest == null) {
      state.engine().rollback(admission);
      return null;
    }
    Workload copy = Copies.forStatus(latest);
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
    List<String> unreachable = state.engine().unreachablePodSets(admission.workloadUid());
    if (unreachable.isEmpty()) {
      StatusConditions.remove(status, StatusConditions.SCHEDULABLE);
    } else {
      StatusConditions.set(
          status,
          StatusConditions.SCHEDULABLE,
          false,
          StatusConditions.NO_MATCHING_NODE,
          "admitted, but kube-scheduler will not place it: " + String.join("; ", unreachable),
          now);
    }
    Optional<String> idle = state.engine().onIdleCapacity(admission.workloadUid());
    if (idle.isPresent()) {
      StatusConditions.set(
          status,
          StatusConditions.ON_IDLE_CAPACITY,
          true,
          "BudgetExhausted",
          dev.berth.engine.model.Explanation.oneLine(
              "admitted on idle capacity, the first to be preempted when a workload within its"
                  + " budget needs the room: "
                  + idle.get()),
          now);
    } else {
      StatusConditions.remove(status, StatusConditions.ON_IDLE_CAPACITY);
    }
    return () -> send(admission, latest, copy);
  }

  /** Sends an admission (writer thread); returns its consequence for the loop thread. */
  private Consumer<ClusterState> send(Admission admission, Workload latest, Workload copy) {
    Workload written;
    try {
      written = statusWrite.replace(copy);
    } catch (KubernetesClientException e) {
      if (outcomeUnknown(e)) {
        // The server may have applied it: read it back before giving the quota to anyone else.
        log.warn(
            "admission of {} has an unknown outcome ({}: {}); reading it back",
            name(latest),
            e.getCode(),
            e.getMessage());
        return resolve(new Unresolved(admission, latest)).andThen(s -> retryAsked = true);
      }
      if (!ApiErrors.throttled(e)) {
        // 409: a newer version is on its way and will be decided again; 404: it is gone; other
        // 4xx: retrying the same write cannot help, the next event decides again.
        log.info("admission of {} not written ({}); rolled back", name(latest), e.getCode());
        return s -> rollbackIfHeld(admission, s);
      }
      log.warn(
          "admission of {} not written: {}; rolled back, will retry", name(latest), e.getMessage());
      return s -> {
        rollbackIfHeld(admission, s);
        retryAsked = true;
      };
    } catch (RuntimeException e) {
      // Not the API server's answer (an I/O failure the client did not wrap): outcome unknown.
      log.warn(
          "admission of {} has an unknown outcome ({}); reading it back",
          name(latest),
          e.toString());
      return resolve(new Unresolved(admission, latest)).andThen(s -> retryAsked = true);
    }
    return s -> {
      s.workloadWritten(written);
      admitted(written, admission);
    };
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
    Workload copy = Copies.deep(latest);
    copy.getSpec().active = false;
    try {
      Workload written = client.resource(copy).update();
      state.workloadWritten(written);
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
    return ApiErrors.outcomeUnknown(e);
  }

  /**
   * One Event per admission, named for the transition it made: Admitted, or QuotaReserved while
   * admission checks are still to pass (the Admitted Event then comes from the check gate).
   */
  private void admitted(Workload written, Admission admission) {
    if (StatusConditions.isTrue(written, StatusConditions.ADMITTED)) {
      admittedMetrics.admitted(
          admission.clusterQueue(),
          ModelTranslator.queueTimestamp(written),
          admission.admittedAt());
      events.normal(
          written,
          "Admitted",
          "Quota reserved and admitted by ClusterQueue " + admission.clusterQueue());
    } else {
      events.normal(
          written,
          "QuotaReserved",
          "Quota reserved in ClusterQueue "
              + admission.clusterQueue()
              + "; "
              + StatusConditions.find(written.getStatus().conditions, StatusConditions.ADMITTED)
                  .map(c -> c.message)
                  .orElse("waiting for admission checks"));
    }
    StatusConditions.find(written.getStatus().conditions, StatusConditions.SCHEDULABLE)
        .filter(c -> "False".equals(c.status))
        .ifPresent(c -> events.warning(written, StatusConditions.NO_MATCHING_NODE, c.message));
    for (var ps : admission.podSetAssignments()) {
      if (ps.topologyAssignment() != null) {
        events.normal(
            written,
            "TopologyAssigned",
            TopologyTranslator.summary(ps.name(), ps.topologyAssignment()));
      }
    }
  }

  /**
   * Queues the eviction's write, prepared once any write before it is back; returns true when the
   * writers had no room. The engine asks for its own evictions again every cycle until the Workload
   * shows Evicted; a deactivation ({@code deactivation}) is the writer's own, so a refused one goes
   * back on the list for the next cycle.
   */
  private boolean evict(
      String uid,
      String reason,
      String message,
      ClusterState state,
      Instant now,
      boolean deactivation) {
    Runnable again = deactivation ? () -> state.deactivated.add(uid) : () -> {};
    boolean queued =
        pool.submit(
            uid,
            () -> {
              Workload latest = state.latestWorkload(uid).orElse(null);
              if (latest == null || StatusConditions.isTrue(latest, StatusConditions.EVICTED)) {
                return null;
              }
              Workload copy = Copies.deep(latest);
              StatusConditions.set(
                  copy.getStatus(), StatusConditions.EVICTED, true, reason, message, now);
              evicting(copy, reason, message, now);
              String cq = latest.getStatus().admission.clusterQueue;
              return () ->
                  sendEviction(
                      copy,
                      "eviction",
                      again,
                      written -> {
                        events.warning(written, "Evicted", message);
                        if (deactivation) {
                          // Engine evictions are counted from the cycle result; these are the
                          // writer's own (Deactivated, PodsReady's limit, an admission check's
                          // rejection, the maximum execution time), each with its reason.
                          Counter.builder("berth_evicted_workloads_total")
                              .tags("cluster_queue", cq, "reason", reason)
                              .register(registry)
                              .increment();
                        }
                      });
            });
    if (!queued) {
      again.run();
    }
    return !queued;
  }

  /**
   * Sends an eviction (writer thread). A refusal leaves the engine expecting it, so the next cycle
   * asks again; one other than a conflict or a missing object also asks for a timed cycle.
   */
  private Consumer<ClusterState> sendEviction(
      Workload copy, String what, Runnable again, Consumer<Workload> written) {
    String decidedOn = copy.getMetadata().getResourceVersion();
    try {
      Workload stored = statusWrite.replace(copy);
      return s -> {
        s.workloadWritten(stored);
        written.accept(stored);
      };
    } catch (KubernetesClientException e) {
      if (outcomeUnknown(e)) {
        Workload applied = evictionReadBack(copy, decidedOn, what, e);
        if (applied != null) {
          return s -> {
            s.workloadWritten(applied);
            written.accept(applied);
          };
        }
      }
      log.info("{} of {} not written ({}); asked again next cycle", what, name(copy), e.getCode());
      boolean retry = retryable(e);
      return s -> {
        again.run();
        retryAsked |= retry;
      };
    }
  }

  /**
   * An eviction or preemption whose outcome is unknown, read back (writer thread): the stored
   * Workload when it carries this very Evicted condition at a newer version (the write was applied:
   * its Event is written and nothing is sent again), else null (not applied, gone, or the read
   * failed too: asked again next cycle, and a write at the old version is refused if it was applied
   * after all).
   */
  private Workload evictionReadBack(
      Workload copy, String decidedOn, String what, KubernetesClientException e) {
    Workload read;
    try {
      read =
          client
              .resources(Workload.class)
              .inNamespace(copy.getMetadata().getNamespace())
              .withName(copy.getMetadata().getName())
              .get();
    } catch (KubernetesClientException failed) {
      log.warn(
          "{} of {} has an unknown outcome ({}) and the read-back failed ({})",
          what,
          name(copy),
          e.getCode(),
          failed.getCode());
      return null;
    }
    var ours = StatusConditions.find(copy.getStatus().conditions, StatusConditions.EVICTED);
    boolean applied =
        read != null
            && read.getMetadata().getUid().equals(copy.getMetadata().getUid())
            && !read.getMetadata().getResourceVersion().equals(decidedOn)
            && read.getStatus() != null
            && StatusConditions.find(read.getStatus().conditions, StatusConditions.EVICTED)
                .filter(c -> c.isTrue())
                .filter(
                    c -> ours.isPresent() && java.util.Objects.equals(c.reason, ours.get().reason))
                .filter(c -> java.util.Objects.equals(c.message, ours.get().message))
                .isPresent();
    log.info(
        "{} of {} with unknown outcome ({}) read back: {}",
        what,
        name(copy),
        e.getCode(),
        applied ? "WRITTEN" : "NOT_WRITTEN");
    return applied ? read : null;
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
    // It said where this admission's pods could not go; the next admission says it anew.
    StatusConditions.remove(copy.getStatus(), StatusConditions.SCHEDULABLE);
  }

  /** A conflict or a missing object brings its own event; anything else needs a timed retry. */
  private static boolean retryable(KubernetesClientException e) {
    return !ApiErrors.conflictOrGone(e);
  }

  /**
   * Evicted with reason Preempted, and a Preempted condition saying why and by whom; returns true
   * when the writers had no room (the engine asks for it again).
   */
  private boolean preempt(Eviction eviction, ClusterState state, Instant now) {
    return !pool.submit(
        eviction.workloadUid(),
        () -> {
          Workload latest = state.latestWorkload(eviction.workloadUid()).orElse(null);
          if (latest == null || StatusConditions.isTrue(latest, StatusConditions.EVICTED)) {
            return null;
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
          Workload copy = Copies.deep(latest);
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
          return () ->
              sendEviction(
                  copy,
                  "preemption",
                  () -> {},
                  written -> events.warning(written, "Preempted", why));
        });
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
