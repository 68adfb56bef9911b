package dev.berth.operator.status;

import dev.berth.engine.StartEstimate;
import dev.berth.operator.admission.AdmissionLoop;
import dev.berth.operator.admission.ClusterView;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Runs the engine's start-time replay on the loop thread at most once per {@link #REPLAY_EVERY}
 * (the visibility API reads the engine's latest estimates), and keeps for each pending workload the
 * estimate its condition shows: replaced only on a meaningful change (the basis changes, it becomes
 * known or unknown, or it moves by at least a minute and a tenth of the time left), so that the
 * condition's message, and thus its status writes, do not follow every small drift.
 */
public final class StartEstimates implements Consumer<AdmissionLoop.CycleOutcome> {
  static final Duration REPLAY_EVERY = Duration.ofSeconds(15);
  private static final long MIN_MOVE_MILLIS = 60_000;

  private final ClusterView state;
  private final Clock clock;
  private final Consumer<Duration> pokeAfter;
  private final Map<String, StartEstimate> shown = new HashMap<>();
  private Instant lastReplay = Instant.EPOCH;

  public StartEstimates(ClusterView state, Clock clock, Consumer<Duration> pokeAfter) {
    this.state = state;
    this.clock = clock;
    this.pokeAfter = pokeAfter;
  }

  @Override
  public void accept(AdmissionLoop.CycleOutcome outcome) {
    Instant now = clock.instant();
    if (now.isBefore(lastReplay.plus(REPLAY_EVERY))) {
      return;
    }
    lastReplay = now;
    Map<String, StartEstimate> fresh = state.estimateStarts(now.toEpochMilli());
    shown.keySet().retainAll(fresh.keySet());
    fresh.forEach(
        (uid, est) ->
            shown.merge(
                uid, est, (old, neu) -> meaningful(old, neu, now.toEpochMilli()) ? neu : old));
    if (!fresh.isEmpty()) {
      // Estimates age even when nothing happens (a workload running past its median).
      pokeAfter.accept(REPLAY_EVERY);
    }
  }

  static boolean meaningful(StartEstimate old, StartEstimate neu, long now) {
    if (old.known() != neu.known() || !old.basis().equals(neu.basis())) {
      return true;
    }
    if (!old.known()) {
      return false;
    }
    long moved = Math.abs(neu.startAt() - old.startAt());
    long left = Math.max(0, old.startAt() - now);
    return moved >= Math.max(MIN_MOVE_MILLIS, left / 10);
  }

  /** The most the estimate takes of the 200-character message: the reason keeps the rest. */
  static final int NOTE_LIMIT = 79;

  /**
   * What the workload's QuotaReserved=False message adds: "; estimated start 2026-12-01T16:20Z
   * (maxExecutionTime)", the basis shortened to keep it within {@link #NOTE_LIMIT} characters; ""
   * before the first replay and when the estimate is unknown (the visibility API says why: a
   * message is for the reason, and a deep queue's tail then causes no writes).
   */
  public String note(String uid) {
    StartEstimate est = shown.get(uid);
    if (est == null || !est.known()) {
      return "";
    }
    Instant at = Instant.ofEpochMilli(est.startAt()).truncatedTo(ChronoUnit.MINUTES);
    String head = "; estimated start " + at.toString().replace(":00Z", "Z") + " (";
    String basis = est.basis();
    int room = NOTE_LIMIT - head.length() - 1;
    if (basis.length() > room) {
      basis = basis.substring(0, room - 1) + "\u2026";
    }
    return head + basis + ")";
  }
}
