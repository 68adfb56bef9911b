package dev.berth.operator.admission;

import java.util.concurrent.TimeUnit;

/**
 * A token bucket over API requests: at most {@code burst} at once, refilled at {@code qps} per
 * second, like client-go's QPS and burst. Keeps a burst of decisions from flooding the API server,
 * which answers a flood with 429s that would each cost a rollback and a cycle.
 */
public final class WriteRate {
  private final double qps;
  private final double burst;
  private double tokens;
  private long refilledAt;

  public WriteRate(double qps, int burst) {
    if (!(qps > 0)) {
      throw new IllegalArgumentException("write QPS must be more than 0, got " + qps);
    }
    if (burst < 1) {
      throw new IllegalArgumentException("write burst must be at least 1, got " + burst);
    }
    this.qps = qps;
    this.burst = burst;
    this.tokens = burst;
    this.refilledAt = System.nanoTime();
  }

  /** Blocks the calling writer until a request may be sent. */
  void acquire() throws InterruptedException {
    long waitNanos;
    synchronized (this) {
      refill(System.nanoTime());
      tokens -= 1;
      waitNanos = tokens >= 0 ? 0 : (long) (-tokens / qps * 1e9);
    }
    if (waitNanos > 0) {
      TimeUnit.NANOSECONDS.sleep(waitNanos);
    }
  }

  /** Takes a token if one is there now; never waits (the loop thread's own budgets). */
  public synchronized boolean tryAcquire(long nowNanos) {
    refill(nowNanos);
    if (tokens < 1) {
      return false;
    }
    tokens -= 1;
    return true;
  }

  /** How many {@link #tryAcquire} calls would succeed at {@code nowNanos}. */
  public synchronized int available(long nowNanos) {
    refill(nowNanos);
    return tokens < 1 ? 0 : (int) tokens;
  }

  /** Nanoseconds from {@code nowNanos} until {@link #tryAcquire} can succeed. */
  public synchronized long nanosUntilToken(long nowNanos) {
    refill(nowNanos);
    return tokens >= 1 ? 0 : (long) ((1 - tokens) / qps * 1e9);
  }

  private void refill(long now) {
    if (now > refilledAt) {
      tokens = Math.min(burst, tokens + (now - refilledAt) / 1e9 * qps);
      refilledAt = now;
    }
  }
}
