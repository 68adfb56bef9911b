package dev.berth.engine.checks;

/** The state of one admission check for one workload, as its controller reports it. */
public enum CheckState {
  /** Not decided yet: the workload holds quota and waits. */
  Pending,
  /** Passed: once every check is Ready the workload is admitted. */
  Ready,
  /** Not now: the quota is released and the workload requeued with backoff. */
  Retry,
  /** Never: the workload is deactivated. */
  Rejected;

  /** The state named by {@code value}; anything unknown counts as Pending (never as Ready). */
  public static CheckState of(String value) {
    if (value == null) {
      return Pending;
    }
    for (CheckState s : values()) {
      if (s.name().equals(value)) {
        return s;
      }
    }
    return Pending;
  }
}
