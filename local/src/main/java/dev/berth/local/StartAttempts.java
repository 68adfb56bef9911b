package dev.berth.local;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Starts something that can fail for reasons of the moment, up to a number of times, each try on a
 * fresh instance. kube-api-test picks etcd's and kube-apiserver's ports by probing, so another
 * process can take one between the probe and the bind, and a busy disk can hold etcd past the
 * readiness timeout; a second try with new ports and new data directories gets past both. A failure
 * that is not of the moment (binaries missing) fails every try quickly, and the error then lists
 * what each try said.
 */
final class StartAttempts<T> {
  /** One try: make an instance, start it, and clean up what a failed start left running. */
  interface Attempt<T> {
    T start();
  }

  private final String what;
  private final int attempts;
  private final Consumer<String> retrying;

  /** {@code retrying} hears why a try failed when another follows. */
  StartAttempts(String what, int attempts, Consumer<String> retrying) {
    if (attempts < 1) {
      throw new IllegalArgumentException("attempts must be at least 1, was " + attempts);
    }
    this.what = what;
    this.attempts = attempts;
    this.retrying = retrying;
  }

  /**
   * The first instance that starts. Throws {@link IllegalStateException} naming every try's error
   * (and {@code context}, read after the last one, such as free disk space) when none does.
   */
  T start(Attempt<T> attempt, Supplier<String> context) {
    List<RuntimeException> failures = new ArrayList<>();
    for (int i = 1; i <= attempts; i++) {
      try {
        return attempt.start();
      } catch (RuntimeException e) {
        failures.add(e);
        if (i < attempts) {
          retrying.accept(
              what + ": try " + i + " of " + attempts + " failed (" + e.getMessage() + ")");
        }
      }
    }
    StringBuilder message =
        new StringBuilder("cannot start ").append(what).append(" in ").append(attempts);
    message.append(attempts == 1 ? " try" : " tries");
    for (int i = 0; i < failures.size(); i++) {
      message.append(i == 0 ? ": " : "; ").append("try ").append(i + 1).append(": ");
      message.append(failures.get(i).getMessage());
    }
    message.append(" [").append(context.get()).append(']');
    IllegalStateException error = new IllegalStateException(message.toString(), failures.get(0));
    failures.stream().skip(1).forEach(error::addSuppressed);
    throw error;
  }
}
