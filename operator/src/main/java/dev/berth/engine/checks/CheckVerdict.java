package dev.berth.engine.checks;

/** What a quota-reserved workload's check states mean for it now. */
public sealed interface CheckVerdict {
  /** Every check is Ready: the workload is admitted. */
  record Admit() implements CheckVerdict {}

  /** Some check has not answered: the workload keeps its quota and waits, for this reason. */
  record Wait(String message) implements CheckVerdict {}

  /** A check asks to try again later: release the quota, requeue with backoff. */
  record Retry(String check, String message) implements CheckVerdict {}

  /** A check refuses the workload: deactivate it. */
  record Reject(String check, String message) implements CheckVerdict {}
}
