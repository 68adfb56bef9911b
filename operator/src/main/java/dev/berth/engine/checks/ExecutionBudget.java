package dev.berth.engine.checks;

/**
 * Maximum execution time: a workload may run admitted for {@code maxSeconds} in all, counted across
 * requeues ({@code pastSeconds} from earlier admissions plus the current one).
 */
public final class ExecutionBudget {
  private ExecutionBudget() {}

  /** Epoch millis at which the current admission (since {@code admittedAt}) uses it up. */
  public static long deadline(int maxSeconds, int pastSeconds, long admittedAt) {
    return admittedAt + Math.max(0, (long) maxSeconds - pastSeconds) * 1000;
  }

  /** Seconds run in all once the current admission ends at {@code now}. */
  public static int accumulated(int pastSeconds, long admittedAt, long now) {
    return (int) Math.min(Integer.MAX_VALUE, pastSeconds + Math.max(0, now - admittedAt) / 1000);
  }
}
