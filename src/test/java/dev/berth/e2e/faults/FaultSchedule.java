package dev.berth.e2e.faults;

import java.util.Optional;
import java.util.Random;

/**
 * Which fault, if any, hits the next request: a seeded {@link Random}, so that a run's sequence of
 * decisions is the same for the same seed (the operators' timing still varies from run to run).
 * Writes may meet any fault but a watch drop (the "applied, then 500 / 504" ones only Workload
 * status writes and Job updates); reads a 429 or a 500; watches a drop.
 */
final class FaultSchedule {
  private final Random random;
  private final double rate;

  /** {@code rate}: the chance of each kind of fault per request that can meet it. */
  FaultSchedule(long seed, double rate) {
    if (rate < 0 || rate > 0.2) {
      throw new IllegalArgumentException("berth.faults.rate: " + rate + " is not within [0, 0.2]");
    }
    this.random = new Random(seed);
    this.rate = rate;
  }

  synchronized Optional<Fault> next(boolean write, boolean watch) {
    return next(write, watch, false);
  }

  /**
   * {@code applyable}: a write whose ambiguous failures the proxy can inject after the API server
   * applied it (a Workload status write, a Job update; {@link FaultyApiProxy}), which may also meet
   * {@link Fault#APPLIED_THEN_500} and {@link Fault#APPLIED_THEN_504}.
   */
  synchronized Optional<Fault> next(boolean write, boolean watch, boolean applyable) {
    double roll = random.nextDouble();
    if (watch) {
      // Watches are few and long: eight times the rate (16 % at the default), so that the
      // informers meet drops in every run.
      return roll < Math.min(1, rate * 8) ? Optional.of(Fault.WATCH_DROP) : Optional.empty();
    }
    Fault[] kinds =
        write && applyable
            ? new Fault[] {
              Fault.CONFLICT,
              Fault.TOO_MANY_REQUESTS,
              Fault.SERVER_ERROR,
              Fault.TIMEOUT_AFTER_APPLY,
              Fault.APPLIED_THEN_500,
              Fault.APPLIED_THEN_504
            }
            : write
                ? new Fault[] {
                  Fault.CONFLICT,
                  Fault.TOO_MANY_REQUESTS,
                  Fault.SERVER_ERROR,
                  Fault.TIMEOUT_AFTER_APPLY
                }
                : new Fault[] {Fault.TOO_MANY_REQUESTS, Fault.SERVER_ERROR};
    int index = (int) (roll / rate);
    return index < kinds.length ? Optional.of(kinds[index]) : Optional.empty();
  }

  /** How long a dropped watch streams before it is cut: 1 to 15 s. */
  synchronized long dropAfterMillis() {
    return 1_000 + random.nextInt(14_000);
  }
}
