package dev.berth.e2e.faults;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Stopping the suite's child processes and showing their logs. */
final class ChildProcesses {
  private ChildProcesses() {}

  /** SIGTERM, then SIGKILL after {@code grace}; a process already gone is left alone. */
  static void stop(Process process, Duration grace) {
    if (process == null || !process.isAlive()) {
      return;
    }
    process.destroy();
    try {
      if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }

  /** The last {@code count} lines of a log, stack frames left out. */
  static String tail(Path log, int count) {
    try {
      List<String> lines =
          Files.readAllLines(log, StandardCharsets.UTF_8).stream()
              .filter(l -> !l.startsWith("\tat ") && !l.startsWith("\t... "))
              .toList();
      return String.join("\n", lines.subList(Math.max(0, lines.size() - count), lines.size()));
    } catch (IOException e) {
      return "(no log " + log + ": " + e.getMessage() + ")";
    }
  }
}
