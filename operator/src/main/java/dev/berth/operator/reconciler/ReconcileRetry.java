package dev.berth.operator.reconciler;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.api.config.ControllerConfigurationOverrider;
import io.javaoperatorsdk.operator.processing.retry.GenericRetry;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * How every Berth reconciler retries a reconcile that threw: without a limit, 1 s after the first
 * failure, doubling up to {@link #MAX_INTERVAL}. JOSDK's default gives up after five retries (about
 * 26 s of failures) and then waits for the object's next event, or for its ten-hour resync: a Job
 * admitted while the API server refused its start for half a minute (a restart, a webhook or policy
 * outage, a run of conflicts) stayed suspended with its quota held and nothing left to wake it
 * (`ReconcileRetryE2EIT`). Kueue's controllers, like every controller-runtime one, requeue a failed
 * object with a capped backoff and never drop it; so do these. A reconcile that keeps failing is
 * logged by JOSDK at each attempt, so a permanent refusal is visible rather than silent.
 */
public final class ReconcileRetry {
  static final Duration FIRST_INTERVAL = Duration.ofSeconds(1);
  static final double MULTIPLIER = 2.0;

  /**
   * The longest wait between two attempts: what a start refused for a while waits at most once the
   * refusal ends, against one failing reconcile per object per this while it lasts.
   */
  public static final Duration MAX_INTERVAL = Duration.ofSeconds(10);

  private ReconcileRetry() {}

  static GenericRetry untilDone() {
    return new GenericRetry()
        .setMaxAttempts(-1)
        .setInitialInterval(FIRST_INTERVAL.toMillis())
        .setIntervalMultiplier(MULTIPLIER)
        .setMaxInterval(MAX_INTERVAL.toMillis());
  }

  /** For {@code Operator.register}: this retry, then {@code more} (another override, or none). */
  public static <R extends HasMetadata> Consumer<ControllerConfigurationOverrider<R>> with(
      Consumer<ControllerConfigurationOverrider<R>> more) {
    return override -> {
      override.withRetry(untilDone());
      more.accept(override);
    };
  }

  /** For {@code Operator.register}: this retry only. */
  public static <R extends HasMetadata> Consumer<ControllerConfigurationOverrider<R>> only() {
    return with(override -> {});
  }
}
