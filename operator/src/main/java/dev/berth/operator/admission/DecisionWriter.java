package dev.berth.operator.admission;

import dev.berth.api.v1beta1.PodSetAssignment;
import dev.berth.api.v1beta1.Workload;
import dev.berth.api.v1beta1.WorkloadStatus;
import dev.berth.engine.Admission;
import dev.berth.engine.CycleResult;
import dev.berth.engine.Eviction;
import dev.berth.engine.PendingStatus;
import dev.berth.operator.events.EventRecorder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
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
 * server refuses it, the admission is rolled back in the engine, and the newer version (already
 * on its way as a watch event) is decided again. No blind write, so no double admission.
 */
public final class DecisionWriter {
  private static final Logger log = LoggerFactory.getLogger(DecisionWriter.class);

  private final KubernetesClient client;
  private final EventRecorder events;
  private final Clock clock;

  public DecisionWriter(KubernetesClient client, EventRecorder events, Clock clock) {
    this.client = client;
    this.events = events;
    this.clock = clock;
  }

  /** Returns true when a write failed for a reason other than a conflict and should be retried. */
  public boolean apply(CycleResult result, ClusterState state) {
    boolean retry = false;
    Instant now = clock.instant();
    // Reasons are computed lazily by the engine and are valid only until its next call.
    var reasons = List.copyOf(result.pendingReasons().values());
    for (Admission admission : result.admissions()) {
      retry |= admit(admission, state, now);
    }
    for (Eviction eviction : result.evictions()) {
      if (eviction.preemptionReason() != null) {
        preempt(eviction, state, now);
      } else {
        evict(eviction.workloadUid(), eviction.reason().name(), eviction.message(), state, now);
      }
    }
    for (String uid : state.takeDeactivated()) {
      evict(uid, "Deactivated", "The workload was deactivated (spec.active=false)", state, now);
    }
    for (PendingStatus pending : reasons) {
      pending(pending, state, now);
    }
    return retry;
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
    WorkloadConditions.set(status, WorkloadConditions.QUOTA_RESERVED, true, "QuotaReserved", message, now);
    WorkloadConditions.set(
        status, WorkloadConditions.ADMITTED, true, "Admitted",
        "The workload is admitted" + (admission.borrows() ? ", borrowing from its cohort" : ""), now);
    WorkloadConditions.remove(status, WorkloadConditions.EVICTED);
    WorkloadConditions.remove(status, WorkloadConditions.PREEMPTED);
    try {
      Workload written = client.resource(copy).updateStatus();
      state.workload(written);
      events.normal(written, "QuotaReserved", message);
      events.normal(written, "Admitted", "Admitted by ClusterQueue " + admission.clusterQueue());
      for (var ps : admission.podSetAssignments()) {
        if (ps.topologyAssignment() != null) {
          events.normal(written, "TopologyAssigned", TopologyTranslator.summary(ps.name(), ps.topologyAssignment()));
        }
      }
      return false;
    } catch (KubernetesClientException e) {
      state.engine().rollback(admission);
      boolean serverSide = e.getCode() >= 500 || e.getCode() == 429 || e.getCode() <= 0;
      if (!serverSide) {
        // 409: a newer version is on its way and will be decided again; 404: it is gone; other
        // 4xx: retrying the same write cannot help, the next event decides again.
        log.info("admission of {} not written ({}); rolled back", name(latest), e.getCode());
        return false;
      }
      log.warn("admission of {} not written: {}; rolled back, will retry", name(latest), e.getMessage());
      return true;
    }
  }

  private void evict(String uid, String reason, String message, ClusterState state, Instant now) {
    Workload latest = state.latestWorkload(uid).orElse(null);
    if (latest == null || WorkloadConditions.isTrue(latest, WorkloadConditions.EVICTED)) {
      return;
    }
    Workload copy = Serialization.clone(latest);
    WorkloadConditions.set(copy.getStatus(), WorkloadConditions.EVICTED, true, reason, message, now);
    try {
      Workload written = client.resource(copy).updateStatus();
      state.workload(written);
      events.warning(written, "Evicted", message);
    } catch (KubernetesClientException e) {
      log.info("eviction of {} not written ({}); the next event retries", name(latest), e.getCode());
    }
  }

  /** Evicted with reason Preempted, and a Preempted condition saying why and by whom. */
  private void preempt(Eviction eviction, ClusterState state, Instant now) {
    Workload latest = state.latestWorkload(eviction.workloadUid()).orElse(null);
    if (latest == null || WorkloadConditions.isTrue(latest, WorkloadConditions.EVICTED)) {
      return;
    }
    String preemptor =
        state.latestWorkload(eviction.preemptorUid())
            .map(DecisionWriter::name)
            .orElse(eviction.preemptorUid());
    String why =
        "Preempted to accommodate " + preemptor + " (" + eviction.preemptionReason() + "): " + eviction.message();
    Workload copy = Serialization.clone(latest);
    WorkloadConditions.set(copy.getStatus(), WorkloadConditions.EVICTED, true, eviction.reason().name(), why, now);
    WorkloadConditions.set(
        copy.getStatus(), WorkloadConditions.PREEMPTED, true, eviction.preemptionReason().name(), why, now);
    try {
      Workload written = client.resource(copy).updateStatus();
      state.workload(written);
      events.warning(written, "Preempted", why);
    } catch (KubernetesClientException e) {
      log.info("preemption of {} not written ({}); the next event retries", name(latest), e.getCode());
    }
  }

  private void pending(PendingStatus pending, ClusterState state, Instant now) {
    Workload latest = state.latestWorkload(pending.workloadUid()).orElse(null);
    if (latest == null || WorkloadConditions.hasQuotaReserved(latest)) {
      return;
    }
    Workload copy = Serialization.clone(latest);
    WorkloadStatus status = copy.getStatus() == null ? new WorkloadStatus() : copy.getStatus();
    copy.setStatus(status);
    boolean changed =
        WorkloadConditions.set(
            status, WorkloadConditions.QUOTA_RESERVED, false, pending.reason().name(), pending.message(), now);
    if (!changed) {
      return;
    }
    try {
      state.workload(client.resource(copy).updateStatus());
    } catch (KubernetesClientException e) {
      log.debug("pending reason of {} not written ({})", name(latest), e.getCode());
    }
  }

  private static String name(Workload wl) {
    return wl.getMetadata().getNamespace() + "/" + wl.getMetadata().getName();
  }
}
