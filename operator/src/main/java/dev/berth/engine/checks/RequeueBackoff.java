package dev.berth.engine.checks;

/**
 * When a workload sent back to its queue may be tried again: base·2^(count−1) seconds, with jitter,
 * capped at max; past {@code limitCount} requeues it is deactivated instead (null: no limit). Pure:
 * the caller passes the time and the jitter draw.
 */
public record RequeueBackoff(long baseSeconds, long maxSeconds, Integer limitCount) {
  /** The fraction the delay may vary by either way, so that evicted gangs do not return at once. */
  public static final double JITTER = 0.1;

  public RequeueBackoff {
    if (baseSeconds < 0 || maxSeconds < 0) {
      throw new IllegalArgumentException("backoff seconds must be >= 0");
    }
    if (limitCount != null && limitCount < 0) {
      throw new IllegalArgumentException("backoffLimitCount must be >= 0");
    }
  }

  /** Kueue's defaults: 60 s base, one hour at most, no limit. */
  public static final RequeueBackoff DEFAULT = new RequeueBackoff(60, 3600, null);

  /** Whether the {@code count}-th requeue is past the limit. */
  public boolean exceeded(int count) {
    return limitCount != null && count > limitCount;
  }

  /**
   * Epoch millis of the {@code count}-th requeue (count ≥ 1) decided at {@code now}; {@code jitter}
   * in [−1, 1] scales {@link #JITTER}.
   */
  public long requeueAt(int count, long now, double jitter) {
    int exponent = Math.max(0, Math.min(count - 1, 40));
    double delay = Math.min((double) maxSeconds, baseSeconds * Math.pow(2, exponent));
    double clamped = Math.max(-1, Math.min(1, jitter));
    double jittered = Math.min((double) maxSeconds, delay * (1 + JITTER * clamped));
    return now + Math.round(jittered * 1000);
  }
}
