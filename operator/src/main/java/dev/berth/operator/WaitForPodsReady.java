package dev.berth.operator;

import dev.berth.engine.checks.RequeueBackoff;
import java.time.Duration;
import java.util.Map;

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

  /**
   * From BERTH_WAIT_FOR_PODS_READY_* variables (the chart sets them from {@code waitForPodsReady}
   * values); a malformed value fails the start, naming the variable.
   */
  public static WaitForPodsReady from(Map<String, String> env) {
    String p = "BERTH_WAIT_FOR_PODS_READY_";
    String limit = env.get(p + "BACKOFF_LIMIT_COUNT");
    return new WaitForPodsReady(
        Boolean.parseBoolean(env.getOrDefault(p + "ENABLE", "false")),
        Duration.ofSeconds(positive(env, p + "TIMEOUT_SECONDS", 300)),
        Boolean.parseBoolean(env.getOrDefault(p + "BLOCK_ADMISSION", "false")),
        env.get(p + "RECOVERY_TIMEOUT_SECONDS") == null
                || env.get(p + "RECOVERY_TIMEOUT_SECONDS").isBlank()
            ? null
            : Duration.ofSeconds(positive(env, p + "RECOVERY_TIMEOUT_SECONDS", 0)),
        timestamp(env.getOrDefault(p + "REQUEUING_TIMESTAMP", "Eviction")),
        new RequeueBackoff(
            seconds(env, p + "BACKOFF_BASE_SECONDS", 60),
            seconds(env, p + "BACKOFF_MAX_SECONDS", 3600),
            limit == null || limit.isBlank()
                ? null
                : (int) seconds(env, p + "BACKOFF_LIMIT_COUNT", 0)));
  }

  /** A timeout of 0 would evict every workload at admission: at least one second. */
  private static long positive(Map<String, String> env, String name, long dflt) {
    long n = seconds(env, name, dflt);
    if (n < 1) {
      throw new IllegalArgumentException(
          name + ": must be at least 1 (seconds), got \"" + env.get(name) + "\"");
    }
    return n;
  }

  private static long seconds(Map<String, String> env, String name, long dflt) {
    String v = env.get(name);
    if (v == null || v.isBlank()) {
      return dflt;
    }
    try {
      long n = Long.parseLong(v.trim());
      if (n < 0) {
        throw new NumberFormatException();
      }
      return n;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + ": must be a whole number >= 0, got \"" + v + "\"");
    }
  }

  private static RequeuingTimestamp timestamp(String v) {
    try {
      return RequeuingTimestamp.valueOf(v.trim());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "BERTH_WAIT_FOR_PODS_READY_REQUEUING_TIMESTAMP: must be"
              + " Eviction or Creation, got \""
              + v
              + "\"");
    }
  }

  /** The same settings with another requeuing backoff (tests use seconds, not minutes). */
  public WaitForPodsReady withBackoff(RequeueBackoff other) {
    return new WaitForPodsReady(enable, timeout, blockAdmission, recoveryTimeout, timestamp, other);
  }
}
