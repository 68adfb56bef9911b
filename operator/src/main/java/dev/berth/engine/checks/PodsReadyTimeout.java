package dev.berth.engine.checks;

import java.util.OptionalLong;

/**
 * waitForPodsReady's clock, pure: what an admitted workload's PodsReady condition says, by when its
 * pods must be ready (the timeout from admission; the recovery timeout from the moment a ready
 * workload lost readiness), and what a timeout leads to (a requeue with backoff, or deactivation
 * once the requeues are used up). Times are epoch millis passed in by the caller.
 */
public final class PodsReadyTimeout {
  /** Reasons of the PodsReady condition, as Kueue names them. */
  public static final String READY = "PodsReady";

  public static final String RECOVERED = "Recovered";
  public static final String WAIT_FOR_START = "WaitForStart";
  public static final String WAIT_FOR_RECOVERY = "WaitForRecovery";

  private final long timeoutMillis;

  /** Null: a workload that was ready may stay unready for as long as it likes. */
  private final Long recoveryTimeoutMillis;

  public PodsReadyTimeout(long timeoutMillis, Long recoveryTimeoutMillis) {
    this.timeoutMillis = timeoutMillis;
    this.recoveryTimeoutMillis = recoveryTimeoutMillis;
  }

  /** Where an admitted workload stands: since when it waits (for start, or for recovery). */
  public enum Phase {
    WaitForStart,
    Ready,
    WaitForRecovery
  }

  /** The condition to write: its status and reason. */
  public record Condition(boolean ready, String reason) {}

  /**
   * The PodsReady condition for pods that are ({@code readyNow}) or are not all ready, given the
   * condition's reason so far in this admission (null: none yet).
   */
  public static Condition condition(String previousReason, boolean readyNow) {
    boolean wasReadyOnce =
        READY.equals(previousReason)
            || RECOVERED.equals(previousReason)
            || WAIT_FOR_RECOVERY.equals(previousReason);
    if (readyNow) {
      // Ready stays as it became: PodsReady the first time, Recovered after a loss.
      boolean recovered =
          RECOVERED.equals(previousReason) || WAIT_FOR_RECOVERY.equals(previousReason);
      return new Condition(true, recovered ? RECOVERED : READY);
    }
    return new Condition(false, wasReadyOnce ? WAIT_FOR_RECOVERY : WAIT_FOR_START);
  }

  /** The phase a condition (its status and reason; status null: none yet) stands for. */
  public static Phase phase(Boolean ready, String reason) {
    if (Boolean.TRUE.equals(ready)) {
      return Phase.Ready;
    }
    return WAIT_FOR_RECOVERY.equals(reason) ? Phase.WaitForRecovery : Phase.WaitForStart;
  }

  /**
   * When the workload is out of time: {@code since} is its admission for WaitForStart, the moment
   * it lost readiness for WaitForRecovery. Empty when no deadline applies.
   */
  public OptionalLong deadline(Phase phase, long since) {
    return switch (phase) {
      case Ready -> OptionalLong.empty();
      case WaitForStart -> OptionalLong.of(since + timeoutMillis);
      case WaitForRecovery ->
          recoveryTimeoutMillis == null
              ? OptionalLong.empty()
              : OptionalLong.of(since + recoveryTimeoutMillis);
    };
  }

  /** What a timed-out workload's eviction leads to. */
  public sealed interface AfterTimeout {}

  /** Back to its queue, not reconsidered before {@code requeueAt}, this being requeue count. */
  public record Requeue(int count, long requeueAt) implements AfterTimeout {}

  /** Requeued too often: deactivated (spec.active=false), never requeued. */
  public record Deactivate(int count) implements AfterTimeout {}

  /**
   * After the {@code previousCount}-th requeue (0: never requeued) the workload timed out again at
   * {@code now}; {@code jitter} in [−1, 1].
   */
  public static AfterTimeout afterTimeout(
      RequeueBackoff backoff, int previousCount, long now, double jitter) {
    int count = previousCount + 1;
    if (backoff.exceeded(count)) {
      return new Deactivate(previousCount);
    }
    return new Requeue(count, backoff.requeueAt(count, now, jitter));
  }
}
