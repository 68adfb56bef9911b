package dev.berth.e2e;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** Commands the suites run as a user would (kubectl, kubectl berth), and what they printed. */
final class Processes {
  private Processes() {}

  /** A finished command: exit code, stdout, stderr. */
  record Run(int code, String out, String err) {}

  /**
   * Runs {@code pb} to its end (at most 120 s), its output kept in files under {@code dir} so that
   * a chatty command never blocks on a full pipe.
   */
  static Run run(ProcessBuilder pb, Path dir) throws IOException, InterruptedException {
    Path out = Files.createTempFile(dir, "out", ".txt");
    Path err = Files.createTempFile(dir, "err", ".txt");
    Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("timed out: " + pb.command());
    }
    return new Run(
        p.exitValue(),
        Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
  }

  /**
   * The directory of the kubectl built with the test's control plane (the API server's version).
   */
  static Path kubectlDir() throws IOException {
    Path k8s = Path.of(System.getProperty("user.home"), ".kubeapitest", "k8s");
    try (var dirs = Files.list(k8s)) {
      return dirs.filter(d -> Files.isExecutable(d.resolve("kubectl")))
          .sorted()
          .findFirst()
          .orElseThrow(() -> new AssertionError("no kubectl under " + k8s));
    }
  }
}
