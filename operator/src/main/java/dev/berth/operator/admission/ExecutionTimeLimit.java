package dev.berth.operator.admission;

import dev.berth.api.v1beta1.Workload;
import dev.berth.engine.checks.ExecutionBudget;
import dev.berth.operator.Timestamps;
import java.time.format.DateTimeParseException;
import java.util.OptionalLong;

/**
 * A Workload's maximum execution time, read from its spec and status: the admitted run started when
 * Admitted last became True, and what earlier admissions used is in
 * status.accumulatedPastExecutionTimeSeconds.
 */
public final class ExecutionTimeLimit {
  public static final String REASON = "MaximumExecutionTimeExceeded";

  private ExecutionTimeLimit() {}

  /** When the running admission uses the budget up; empty without a limit or not admitted. */
  public static OptionalLong deadline(Workload wl) {
    return deadline(wl, admittedAt(wl));
  }

  /**
   * As {@link #deadline(Workload)}, for a Workload whose admission time is already read (its {@link
   * WorkloadPhase.Admitted#admittedAt}).
   */
  static OptionalLong deadline(Workload wl, long admittedAt) {
    Integer max = wl.getSpec() == null ? null : wl.getSpec().maximumExecutionTimeSeconds;
    if (max == null || admittedAt <= 0) {
      return OptionalLong.empty();
    }
    return OptionalLong.of(ExecutionBudget.deadline(max, past(wl), admittedAt));
  }

  public static boolean exceeded(Workload wl, long now) {
    OptionalLong deadline = deadline(wl);
    return deadline.isPresent() && deadline.getAsLong() <= now;
  }

  /** Seconds run in all once the current admission ends now (for a release of its quota). */
  public static Integer accumulatedAt(Workload wl, long now) {
    long admittedAt = admittedAt(wl);
    if (wl.getSpec().maximumExecutionTimeSeconds == null || admittedAt <= 0) {
      return wl.getStatus() == null ? null : wl.getStatus().accumulatedPastExecutionTimeSeconds;
    }
    return ExecutionBudget.accumulated(past(wl), admittedAt, now);
  }

  public static String message(Workload wl) {
    return "The workload ran admitted for its maximum execution time of "
        + wl.getSpec().maximumExecutionTimeSeconds
        + " s";
  }

  private static int past(Workload wl) {
    Integer past =
        wl.getStatus() == null ? null : wl.getStatus().accumulatedPastExecutionTimeSeconds;
    return past == null ? 0 : past;
  }

  private static long admittedAt(Workload wl) {
    if (!StatusConditions.hasQuotaReserved(wl)
        || !StatusConditions.isTrue(wl, StatusConditions.ADMITTED)) {
      return 0;
    }
    return StatusConditions.find(wl.getStatus().conditions, StatusConditions.ADMITTED)
        .map(c -> c.lastTransitionTime)
        .map(
            t -> {
              try {
                return Timestamps.millis(t);
              } catch (DateTimeParseException e) {
                return 0L;
              }
            })
        .orElse(0L);
  }
}
