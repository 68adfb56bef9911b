package dev.berth.operator;

import dev.berth.engine.checks.RequeueBackoff;
import dev.berth.operator.config.Configuration;
import java.time.Duration;

/**
 * waitForPodsReady, as Kueue configures it: whether an admitted workload must have its pods ready
 * within {@code timeout} (else it is evicted with reason PodsReadyTimeout), whether admission waits
 * meanwhile ({@code blockAdmission}), how long a ready workload may lose readiness ({@code
 * recoveryTimeout}, null: forever), and how evicted workloads are requeued. The requeuing backoff
 * also paces workloads sent back by an admission check's Retry.
 */
public record WaitForPodsReady(
    boolean enable,
    Duration timeout,
    boolean blockAdmission,
    Duration recoveryTimeout,
    RequeuingTimestamp timestamp,
    RequeueBackoff backoff) {

  /** What orders a requeued workload in its queue: its eviction, or its creation. */
  public enum RequeuingTimestamp {
    Eviction,
    Creation
  }

  public static final WaitForPodsReady DEFAULT =
      new WaitForPodsReady(
          false,
          Duration.ofMinutes(5),
          false,
          null,
          RequeuingTimestamp.Eviction,
          RequeueBackoff.DEFAULT);

  /** The settings of the configuration's {@code waitForPodsReady} section. */
  public static WaitForPodsReady of(Configuration.WaitForPodsReady section) {
    Configuration.RequeuingStrategy requeuing = section.requeuingStrategy();
    return new WaitForPodsReady(
        section.enable(),
        section.timeout(),
        section.blockAdmission(),
        section.recoveryTimeout(),
        RequeuingTimestamp.valueOf(requeuing.timestamp()),
        new RequeueBackoff(
            requeuing.backoffBaseSeconds(),
            requeuing.backoffMaxSeconds(),
            requeuing.backoffLimitCount()));
  }

  /** The same settings with another requeuing backoff (tests use seconds, not minutes). */
  public WaitForPodsReady withBackoff(RequeueBackoff other) {
    return new WaitForPodsReady(enable, timeout, blockAdmission, recoveryTimeout, timestamp, other);
  }
}
