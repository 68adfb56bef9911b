package dev.berth.operator.status;

import java.time.Duration;
import java.time.Instant;
import java.util.function.Consumer;

/**
 * A publisher's one pending wake-up of the admission loop, for a write its rate bound held back: a
 * new one is asked for only when none is due at or before the time wanted.
 */
final class WakeUp {
  private final Consumer<Duration> pokeAfter;
  private Instant scheduledFor;

  WakeUp(Consumer<Duration> pokeAfter) {
    this.pokeAfter = pokeAfter;
  }

  void at(Instant when, Instant now) {
    if (scheduledFor != null && !scheduledFor.isBefore(now) && !scheduledFor.isAfter(when)) {
      return;
    }
    scheduledFor = when;
    pokeAfter.accept(Duration.between(now, when).plusMillis(10));
  }
}
