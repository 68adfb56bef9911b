package dev.berth.operator.admission;

import dev.berth.api.v1beta1.Condition;
import dev.berth.api.v1beta1.Workload;
import dev.berth.engine.checks.PodsReadyTimeout;
import dev.berth.operator.Timestamps;
import dev.berth.operator.WaitForPodsReady;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the loop knows of waitForPodsReady: by when each admitted workload's pods must be ready
 * (from its Admitted and PodsReady conditions), which workloads became ready since the writer last
 * looked (for the histogram), and which it deactivated for too many requeues. Loop thread only.
 */
public final class PodsReadyTracker implements ClusterObserver {
  /** waitForPodsReady on: how {@link #reactivatedAfterLimit} reads a Workload. */
  private static final PhaseClassifier ENABLED = new PhaseClassifier(true);

  private final WaitForPodsReady settings;
  private final PodsReadyTimeout timer;
  private final PhaseClassifier classifier;

  /** uid -> when it is out of time (epoch millis). */
  private final DueTimes deadlines = new DueTimes();

  /** uid -> the admission (its time) whose readiness was already measured. */
  private final Map<String, Long> measured = new ConcurrentHashMap<>();

  private final List<BecameReady> becameReady = new ArrayList<>();
  private final Set<String> limitExceeded = new HashSet<>();

  /** Deactivated for the limit, then reactivated: their requeueState is to be reset. */
  private final Set<String> reactivated = new java.util.LinkedHashSet<>();

  /** A workload's pods became ready, this long after its admission. */
  record BecameReady(String clusterQueue, long millis) {}

  public PodsReadyTracker(WaitForPodsReady settings) {
    this.settings = settings;
    this.timer =
        new PodsReadyTimeout(
            settings.timeout().toMillis(),
            settings.recoveryTimeout() == null ? null : settings.recoveryTimeout().toMillis());
    this.classifier = new PhaseClassifier(settings.enable());
  }

  public WaitForPodsReady settings() {
    return settings;
  }

  /**
   * A Workload as stored now: only an admitted one (quota and every check, still running, not being
   * evicted, not deactivated) waits for its pods.
   */
  @Override
  public void workload(Workload wl, WorkloadPhase phase) {
    String uid = wl.getMetadata().getUid();
    if (!settings.enable()) {
      return;
    }
    if (phase instanceof WorkloadPhase.AwaitingRequeueReset) {
      reactivated.add(uid);
    } else {
      reactivated.remove(uid);
    }
    OptionalLong deadline = deadline(wl, phase);
    if (deadline.isPresent()) {
      deadlines.put(uid, deadline.getAsLong());
    } else {
      deadlines.remove(uid);
    }
    if (!(phase instanceof WorkloadPhase.Admitted admitted)) {
      return;
    }
    long admittedAt = admitted.admittedAt();
    Optional<Condition> ready = condition(wl, StatusConditions.PODS_READY);
    if (ready.filter(c -> c.isTrue() && PodsReadyTimeout.READY.equals(c.reason)).isPresent()
        && admittedAt > 0
        && !Long.valueOf(admittedAt).equals(measured.get(uid))) {
      measured.put(uid, admittedAt);
      becameReady.add(
          new BecameReady(admitted.held().clusterQueue(), Math.max(0, time(ready) - admittedAt)));
    }
  }

  @Override
  public void workloadDeleted(String uid, Workload last) {
    forget(uid);
  }

  /** By when the workload's pods must be ready, or empty when nothing is timed. */
  OptionalLong deadline(Workload wl) {
    return deadline(wl, classifier.classify(wl, System.currentTimeMillis()));
  }

  private OptionalLong deadline(Workload wl, WorkloadPhase phase) {
    if (!settings.enable() || !(phase instanceof WorkloadPhase.Admitted admitted)) {
      return OptionalLong.empty();
    }
    Optional<Condition> ready = condition(wl, StatusConditions.PODS_READY);
    PodsReadyTimeout.Phase timed =
        PodsReadyTimeout.phase(
            ready.map(Condition::isTrue).orElse(null), ready.map(c -> c.reason).orElse(null));
    long since =
        timed == PodsReadyTimeout.Phase.WaitForRecovery ? time(ready) : admitted.admittedAt();
    return since == 0 ? OptionalLong.empty() : timer.deadline(timed, since);
  }

  /**
   * Deactivated after too many requeues and then set active again: it starts over with no requeues
   * counted (as Kueue resets requeueState), else its next timeout would deactivate it at once.
   */
  static boolean reactivatedAfterLimit(Workload wl) {
    // AwaitingRequeueReset comes before any backoff, so the time does not matter.
    return ENABLED.classify(wl, 0) instanceof WorkloadPhase.AwaitingRequeueReset;
  }

  /** Reactivated workloads whose requeueState is still to be reset. */
  List<String> takeReactivated() {
    return drain(reactivated);
  }

  void resetAgain(String uid) {
    reactivated.add(uid);
  }

  void forget(String uid) {
    reactivated.remove(uid);
    deadlines.remove(uid);
    measured.remove(uid);
    limitExceeded.remove(uid);
  }

  /** The workloads out of time at {@code now}, no longer timed (a newer version times again). */
  List<String> takeExpired(long now) {
    return deadlines.takeDue(now);
  }

  /** A timeout whose write failed is tried again. */
  void again(Workload wl) {
    deadline(wl).ifPresent(at -> deadlines.put(wl.getMetadata().getUid(), at));
  }

  /** When the next workload runs out of time. */
  OptionalLong next() {
    return deadlines.next();
  }

  List<BecameReady> takeBecameReady() {
    return drain(becameReady);
  }

  private static <T> List<T> drain(java.util.Collection<T> items) {
    List<T> out = List.copyOf(items);
    items.clear();
    return out;
  }

  void deactivatedForLimit(String uid) {
    limitExceeded.add(uid);
  }

  /** Whether the operator deactivated it for exceeding backoffLimitCount (once asked). */
  boolean takeLimitExceeded(String uid) {
    return limitExceeded.remove(uid);
  }

  private static Optional<Condition> condition(Workload wl, String type) {
    return StatusConditions.find(wl.getStatus().conditions, type);
  }

  private static long time(Optional<Condition> c) {
    try {
      return c.map(x -> x.lastTransitionTime).map(Timestamps::millis).orElse(0L);
    } catch (DateTimeParseException e) {
      return 0L;
    }
  }
}
