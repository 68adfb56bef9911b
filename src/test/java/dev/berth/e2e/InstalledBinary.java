package dev.berth.e2e;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A program the suite needs from a distribution package (Prometheus, Chromium): the path in an
 * environment variable, else the program on PATH, else the repository's install script is run
 * (idempotent) and the program must then be on PATH. Not installed is a failure, never a skip.
 */
public final class InstalledBinary {
  private InstalledBinary() {}

  /**
   * @param program the name on PATH ({@code prometheus}, {@code chromium})
   * @param variable the environment variable that names a binary instead
   * @param script the install script, relative to the repository ({@code scripts/...})
   * @param neededFor what fails without it, for the error
   */
  public static String find(String program, String variable, String script, String neededFor)
      throws IOException {
    String configured = System.getenv(variable);
    if (configured != null && !configured.isBlank()) {
      return configured;
    }
    String found = onPath(program);
    if (found != null) {
      return found;
    }
    Path path = repoRoot(script).resolve(script);
    Process install = new ProcessBuilder("bash", path.toString()).redirectErrorStream(true).start();
    String output = new String(install.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    try {
      if (!install.waitFor(15, TimeUnit.MINUTES)
          || install.exitValue() != 0
          || onPath(program) == null) {
        throw new IllegalStateException(
            program
                + " is needed for "
                + neededFor
                + " and could not be installed ("
                + path
                + "):\n"
                + output);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    return onPath(program);
  }

  private static String onPath(String program) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      Path candidate = Path.of(dir, program);
      if (Files.isExecutable(candidate)) {
        return candidate.toString();
      }
    }
    return null;
  }

  private static Path repoRoot(String script) {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null && !Files.exists(dir.resolve(script))) {
      dir = dir.getParent();
    }
    if (dir == null) {
      throw new IllegalStateException(script + " not found above " + Path.of("").toAbsolutePath());
    }
    return dir;
  }
}
