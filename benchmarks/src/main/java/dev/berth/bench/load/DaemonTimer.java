package dev.berth.bench.load;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/** A single-thread scheduler on a daemon thread, so that a benchmark's exit never waits on it. */
final class DaemonTimer {
  private DaemonTimer() {}

  static ScheduledExecutorService named(String name) {
    return Executors.newSingleThreadScheduledExecutor(
        r -> {
          Thread t = new Thread(r, name);
          t.setDaemon(true);
          return t;
        });
  }
}
