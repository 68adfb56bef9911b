package dev.berth.operator.usage;

/**
 * How many Workload usage records may be sent now: one per idle writer, so that they take only
 * capacity nothing else is using, and a floor of {@code floorPerSecond} a second whatever the
 * writers are doing, so that they always advance. Loop thread only.
 */
final class RecordPace {
  private final long floorIntervalNanos;
  private long floorAt;

  RecordPace(int floorPerSecond, long nowNanos) {
    this.floorIntervalNanos = 1_000_000_000L / floorPerSecond;
    this.floorAt = nowNanos - floorIntervalNanos;
  }

  /** Records to send now, given the writers idle at {@code nowNanos} (System.nanoTime()). */
  int allowed(int idleWriters, long nowNanos) {
    if (idleWriters > 0) {
      return idleWriters;
    }
    if (nowNanos - floorAt >= floorIntervalNanos) {
      floorAt = nowNanos;
      return 1;
    }
    return 0;
  }
}
