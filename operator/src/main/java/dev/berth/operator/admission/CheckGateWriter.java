package dev.berth.operator.admission;

import dev.berth.api.v1beta1.Workload;
import dev.berth.api.v1beta1.WorkloadStatus;
import dev.berth.api.v1beta1.WorkloadStatus.AdmissionCheckState;
import dev.berth.engine.checks.AdmissionCheckGate;
import dev.berth.engine.checks.CheckState;
import dev.berth.engine.checks.CheckStatus;
import dev.berth.engine.checks.CheckVerdict;
import dev.berth.engine.checks.KnownCheck;
import dev.berth.engine.checks.RequeueBackoff;
import dev.berth.operator.events.EventRecorder;
import dev.berth.operator.kube.ApiErrors;
import dev.berth.operator.kube.Copies;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link DecisionWriter}'s part for admission checks, called only from it on the loop thread: a
 * reservation lists the applicable checks as Pending; once their controllers answer, the workload
 * is admitted (every check Ready), evicted and requeued with backoff (Retry), or deactivated
 * (Rejected). Each write carries the resourceVersion the decision was made on.
 */
final class CheckGateWriter {
  private static final Logger log = LoggerFactory.getLogger(CheckGateWriter.class);
  static final String WAITING = "WaitingForAdmissionChecks";

  private final KubernetesClient client;
  private final EventRecorder events;
  private final MeterRegistry registry;
  private final AdmittedMetrics admittedMetrics;
  private final RequeueBackoff backoff;
  private final CheckBackoffs checkBackoffs;

  CheckGateWriter(
      KubernetesClient client,
      EventRecorder events,
      MeterRegistry registry,
      AdmittedMetrics admittedMetrics,
      RequeueBackoff backoff,
      CheckBackoffs checkBackoffs) {
    this.client = client;
    this.events = events;
    this.registry = registry;
    this.admittedMetrics = admittedMetrics;
    this.backoff = backoff;
    this.checkBackoffs = checkBackoffs;
  }

  /** On a quota reservation: the checks to pass, or admitted at once when there are none. */
  void reserve(
      WorkloadStatus status,
      List<String> checks,
      Map<String, KnownCheck> known,
      boolean borrows,
      Instant now) {
    if (checks.isEmpty()) {
      status.admissionChecks = null;
      StatusConditions.set(
          status,
          StatusConditions.ADMITTED,
          true,
          "Admitted",
          "The workload is admitted" + (borrows ? ", borrowing from its cohort" : ""),
          now);
      return;
    }
    status.admissionChecks = new ArrayList<>();
    List<CheckStatus> states = new ArrayList<>();
    for (String name : checks) {
      status.admissionChecks.add(new AdmissionCheckState(name, "Pending", "", now.toString()));
      states.add(new CheckStatus(name, CheckState.Pending, ""));
    }
    StatusConditions.set(
        status,
        StatusConditions.ADMITTED,
        false,
        WAITING,
        message(AdmissionCheckGate.decide(states, known)),
        now);
  }

  /** Acts on every workload whose checks changed; true when a write should be retried. */
  boolean settle(ClusterState state, Instant now) {
    boolean retry = false;
    for (String uid : state.checks().takeToSettle()) {
      Workload latest = state.latestWorkload(uid).orElse(null);
      if (latest == null || !waitsOnChecks(latest)) {
        continue;
      }
      List<CheckStatus> states = AdmissionCheckTracker.states(latest);
      CheckVerdict verdict = AdmissionCheckGate.decide(states, state.checks().known());
      try {
        Workload written;
        if (verdict instanceof CheckVerdict.Wait w) {
          written = waiting(latest, w.message(), now);
        } else if (verdict instanceof CheckVerdict.Retry r) {
          written = retry(latest, r, now);
        } else if (verdict instanceof CheckVerdict.Reject r) {
          written = reject(latest, r);
        } else {
          written = admit(latest, now);
        }
        if (written != null) {
          state.workloadWritten(written);
        }
      } catch (KubernetesClientException e) {
        // 409: the newer version is on its way and is settled when it comes; 404: it is gone.
        log.info(
            "admission checks of {} not settled ({}); {}",
            DecisionWriter.name(latest),
            e.getCode(),
            ApiErrors.conflictOrGone(e) ? "a newer version decides" : "trying again");
        if (!ApiErrors.conflictOrGone(e)) {
          state.checks().settleAgain(uid);
          retry = true;
        }
      }
    }
    return retry;
  }

  private static boolean waitsOnChecks(Workload wl) {
    return StatusConditions.hasQuotaReserved(wl)
        && !StatusConditions.isFinished(wl)
        && !StatusConditions.isTrue(wl, StatusConditions.EVICTED)
        && !Boolean.FALSE.equals(wl.getSpec().active);
  }

  private Workload admit(Workload latest, Instant now) {
    if (StatusConditions.isTrue(latest, StatusConditions.ADMITTED)) {
      return null;
    }
    Workload copy = Copies.deep(latest);
    StatusConditions.set(
        copy.getStatus(),
        StatusConditions.ADMITTED,
        true,
        "Admitted",
        "The workload is admitted: every admission check is Ready",
        now);
    Workload written = client.resource(copy).updateStatus();
    String cq = written.getStatus().admission.clusterQueue;
    events.normal(
        written,
        "Admitted",
        "Admitted by ClusterQueue " + cq + " once its admission checks were Ready");
    admittedMetrics.admitted(cq, ModelTranslator.queueTimestamp(latest), now.toEpochMilli());
    long reservedAt = ClusterState.admittedAt(latest);
    if (reservedAt > 0) {
      DistributionSummary.builder("berth_admission_checks_wait_time_seconds")
          .description("Time from quota reservation until every admission check was Ready")
          .baseUnit("seconds")
          .publishPercentileHistogram()
          .tags("cluster_queue", cq)
          .register(registry)
          .record(Math.max(0, now.toEpochMilli() - reservedAt) / 1000.0);
    }
    return written;
  }

  private Workload waiting(Workload latest, String message, Instant now) {
    Workload copy = Copies.deep(latest);
    if (!StatusConditions.set(
        copy.getStatus(), StatusConditions.ADMITTED, false, WAITING, message, now)) {
      return null;
    }
    return client.resource(copy).updateStatus();
  }

  /** Evicted with reason AdmissionCheck; requeued at requeueState.requeueAt once released. */
  private Workload retry(Workload latest, CheckVerdict.Retry r, Instant now) {
    Workload copy = Copies.deep(latest);
    WorkloadStatus status = copy.getStatus();
    int count =
        status.requeueState == null || status.requeueState.count == null
            ? 1
            : status.requeueState.count + 1;
    long at =
        checkBackoffs
            .forCheck(r.check(), backoff)
            .requeueAt(count, now.toEpochMilli(), ThreadLocalRandom.current().nextDouble(-1, 1));
    status.requeueState = new WorkloadStatus.RequeueState();
    status.requeueState.count = count;
    status.requeueState.requeueAt = Instant.ofEpochMilli(at).toString();
    String message =
        r.message() + "; requeued at " + status.requeueState.requeueAt + " (attempt " + count + ")";
    StatusConditions.set(status, StatusConditions.EVICTED, true, "AdmissionCheck", message, now);
    StatusConditions.set(
        status, StatusConditions.ADMITTED, false, "AdmissionCheckRetry", message, now);
    Workload written = client.resource(copy).updateStatus();
    events.warning(written, "Evicted", message);
    String cq = written.getStatus().admission.clusterQueue;
    Counter.builder("berth_evicted_workloads_total")
        .tags("cluster_queue", cq, "reason", "AdmissionCheck")
        .register(registry)
        .increment();
    Counter.builder("berth_workload_requeues_total")
        .description("Workloads sent back to their queue, by reason")
        .tags("cluster_queue", cq, "reason", "AdmissionCheck")
        .register(registry)
        .increment();
    return written;
  }

  /**
   * Deactivated (spec.active=false): the operator then evicts it with reason AdmissionCheck ({@link
   * #rejection}) and never requeues it.
   */
  private Workload reject(Workload latest, CheckVerdict.Reject r) {
    Workload copy = Copies.deep(latest);
    copy.getSpec().active = false;
    Workload written = client.resource(copy).update();
    events.warning(written, "Rejected", r.message() + "; the workload is deactivated");
    return written;
  }

  /** Why a deactivated workload goes, when an admission check rejected it. */
  static Optional<String> rejection(Workload wl) {
    return AdmissionCheckTracker.states(wl).stream()
        .filter(s -> s.state() == CheckState.Rejected)
        .findFirst()
        .map(
            s ->
                ((CheckVerdict.Reject) AdmissionCheckGate.decide(List.of(s), Map.of())).message()
                    + "; the workload is deactivated");
  }

  private static String message(CheckVerdict verdict) {
    return verdict instanceof CheckVerdict.Wait w ? w.message() : verdict.toString();
  }
}
