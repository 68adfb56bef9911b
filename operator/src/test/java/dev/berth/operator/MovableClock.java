package dev.berth.operator;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;

/** A clock only the test moves (shared by the operator's unit tests). */
public final class MovableClock extends Clock {
  private long millis;

  public MovableClock(long millis) {
    this.millis = millis;
  }

  public void advance(long by) {
    millis += by;
  }

  public void set(Instant at) {
    millis = at.toEpochMilli();
  }

  @Override
  public long millis() {
    return millis;
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(millis);
  }

  @Override
  public ZoneOffset getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(java.time.ZoneId zone) {
    return this;
  }
}
