package dev.berth.operator.status;

import dev.berth.api.v1beta1.Condition;
import dev.berth.api.v1beta1.Workload;
import dev.berth.api.v1beta1.WorkloadStatus;
import dev.berth.engine.PendingStatus;
import dev.berth.engine.model.Explanation;
import dev.berth.operator.admission.AdmissionLoop;
import dev.berth.operator.admission.ClusterState;
import dev.berth.operator.admission.StatusConditions;
import dev.berth.operator.events.EventRecorder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * After each cycle, gives every pending Workload its {@code QuotaReserved=False} condition: the
 * engine's reason and its one-line summary (the whole explanation goes into an Event when the
 * reason changes). Inadmissible workloads (missing LocalQueue, namespace outside the selector,
 * ClusterQueue held or terminating, behind a StrictFIFO head) are never evaluated by a cycle, so
 * besides the workloads a cycle looked at, all pending workloads are swept at most once per {@link
 * #SWEEP_EVERY}.
 *
 * <p>Writes stay cheap: only on change, carrying the resourceVersion, and per workload at most once
 * per {@link #REASON_EVERY} when the reason changes and once per {@link #MESSAGE_EVERY} when only
 * the numbers in the message do. A change held back is written when it is due; the loop is poked
 * then, so no event is needed for it.
 */
public final class PendingConditions implements Consumer<AdmissionLoop.CycleOutcome> {
  private static final Logger log = LoggerFactory.getLogger(PendingConditions.class);
  static final Duration SWEEP_EVERY = Duration.ofSeconds(1);
  static final Duration REASON_EVERY = Duration.ofSeconds(1);
  static final Duration MESSAGE_EVERY = Duration.ofSeconds(30);

  private final KubernetesClient client;
  private final ClusterState state;
  private final EventRecorder events;
  private final Clock clock;
  private final Consumer<Duration> pokeAfter;
  private final Counter writes;
  private final StartEstimates estimates;

  /** When each pending workload's condition was last written by us. */
  private final Map<String, Instant> lastWrite = new HashMap<>();

  /** Changes held back by the rate bound: when each becomes due. */
  private final Map<String, Instant> due = new HashMap<>();

  private Instant lastSweep = Instant.EPOCH;
  private Instant pokeScheduledFor;

  public PendingConditions(
      KubernetesClient client,
      ClusterState state,
      EventRecorder events,
      Clock clock,
      Consumer<Duration> pokeAfter,
      MeterRegistry registry,
      StartEstimates estimates) {
    this.estimates = estimates;
    this.client = client;
    this.state = state;
    this.events = events;
    this.clock = clock;
    this.pokeAfter = pokeAfter;
    this.writes =
        Counter.builder("berth_pending_condition_writes_total")
            .description("Status writes of pending Workloads' QuotaReserved=False condition")
            .register(registry);
  }

  @Override
  public void accept(AdmissionLoop.CycleOutcome outcome) {
    Instant now = clock.instant();
    Map<String, PendingStatus> statuses = new HashMap<>(outcome.result().pendingReasons());
    boolean sweep = !now.isBefore(lastSweep.plus(SWEEP_EVERY));
    if (sweep) {
      lastSweep = now;
      for (PendingStatus s : state.engine().status().pendingStatuses()) {
        statuses.putIfAbsent(s.workloadUid(), s);
      }
      // Forget workloads that are no longer pending (admitted, finished, deleted).
      lastWrite.keySet().removeIf(uid -> !statuses.containsKey(uid));
      due.keySet().removeIf(uid -> !statuses.containsKey(uid));
    } else {
      pokeAt(lastSweep.plus(SWEEP_EVERY), now);
    }
    for (PendingStatus s : statuses.values()) {
      try {
        publish(s, now);
      } catch (RuntimeException e) {
        log.warn("pending condition of {} not written: {}", s.workloadUid(), e.toString());
      }
    }
    Instant next = null;
    for (Instant when : due.values()) {
      next = next == null || when.isBefore(next) ? when : next;
    }
    if (next != null) {
      pokeAt(next, now);
    }
  }

  private void pokeAt(Instant when, Instant now) {
    if (pokeScheduledFor != null
        && !pokeScheduledFor.isBefore(now)
        && !pokeScheduledFor.isAfter(when)) {
      return;
    }
    pokeScheduledFor = when;
    pokeAfter.accept(Duration.between(now, when).plusMillis(10));
  }

  private void publish(PendingStatus pending, Instant now) {
    Workload latest = state.latestWorkload(pending.workloadUid()).orElse(null);
    if (latest == null
        || StatusConditions.hasQuotaReserved(latest)
        || StatusConditions.isFinished(latest)) {
      return;
    }
    String reason = pending.reason().name();
    String summary = summary(latest, pending, estimates.note(pending.workloadUid()));
    Condition current =
        latest.getStatus() == null
            ? null
            : StatusConditions.find(latest.getStatus().conditions, StatusConditions.QUOTA_RESERVED)
                .orElse(null);
    boolean reasonChanged =
        current == null || !"False".equals(current.status) || !reason.equals(current.reason);
    if (!reasonChanged && Objects.equals(summary, current.message)) {
      due.remove(pending.workloadUid());
      return;
    }
    Instant last = lastWrite.get(pending.workloadUid());
    Instant allowed = last == null ? now : last.plus(reasonChanged ? REASON_EVERY : MESSAGE_EVERY);
    if (now.isBefore(allowed)) {
      due.put(pending.workloadUid(), allowed);
      return;
    }
    due.remove(pending.workloadUid());
    Workload copy = Serialization.clone(latest);
    WorkloadStatus status = copy.getStatus() == null ? new WorkloadStatus() : copy.getStatus();
    copy.setStatus(status);
    StatusConditions.set(status, StatusConditions.QUOTA_RESERVED, false, reason, summary, now);
    try {
      Workload written = client.resource(copy).updateStatus();
      state.workload(written);
      lastWrite.put(pending.workloadUid(), now);
      writes.increment();
      if (reasonChanged) {
        events.normal(written, "Pending", reason + ": " + pending.message());
      }
    } catch (KubernetesClientException e) {
      // 409: a newer version is on its way; its cycle publishes again. Otherwise the sweep does.
      log.debug(
          "pending condition of {}/{} not written ({})",
          latest.getMetadata().getNamespace(),
          latest.getMetadata().getName(),
          e.getCode());
    }
  }

  /**
   * The engine's summary, prefixed for a requeued workload with why it was evicted, and ending with
   * the estimated start ({@link StartEstimates#note}, at most 79 characters), which is kept whole:
   * the summary is shortened to make room for it.
   */
  static String summary(Workload wl, PendingStatus pending, String estimate) {
    Condition requeued =
        wl.getStatus() == null
            ? null
            : StatusConditions.find(wl.getStatus().conditions, StatusConditions.REQUEUED)
                .filter(Condition::isTrue)
                .orElse(null);
    String text =
        requeued == null
            ? pending.summary()
            : "requeued after " + requeued.reason + ": " + pending.summary();
    int room = Explanation.SUMMARY_LIMIT - estimate.length();
    if (text.length() > room) {
      text = text.substring(0, Math.max(0, room - 1)) + "\u2026";
    }
    return Explanation.oneLine(text + estimate);
  }

  /** For tests and the benchmark: the pending workloads whose next write is held back. */
  int heldBack() {
    return due.size();
  }
}
