package dev.berth.e2e.chart;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** Runs the real helm binary against the chart in the repository. */
final class HelmCli {
  static final Path CHART = Repo.root().resolve("helm/berth");

  /** What one helm command printed, and how it ended. */
  record Result(int exitCode, String stdout, String stderr) {
    String output() {
      return stdout + stderr;
    }
  }

  private HelmCli() {}

  static Result run(String... args) {
    List<String> command = new ArrayList<>();
    command.add(Repo.helm().toString());
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command).directory(Repo.root().toFile());
    // Keep helm's config, cache and data out of the user's home: template and lint need none.
    Path home = null;
    try {
      home = Files.createTempDirectory("berth-helm-");
      Map<String, String> env = pb.environment();
      env.put("HELM_CONFIG_HOME", home.resolve("config").toString());
      env.put("HELM_CACHE_HOME", home.resolve("cache").toString());
      env.put("HELM_DATA_HOME", home.resolve("data").toString());
      env.remove("KUBECONFIG");
      Path out = home.resolve("stdout");
      Path err = home.resolve("stderr");
      pb.redirectOutput(out.toFile()).redirectError(err.toFile());
      Process process = pb.start();
      if (!process.waitFor(120, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IllegalStateException("helm " + String.join(" ", args) + " timed out");
      }
      return new Result(
          process.exitValue(),
          Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } finally {
      deleteTree(home); // nothing of a helm run stays behind in the temporary directory
    }
  }

  private static void deleteTree(Path root) {
    if (root == null) {
      return;
    }
    try (Stream<Path> files = Files.walk(root)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // a leftover temporary directory is harmless
    }
  }

  /** helm template for the given release and namespace; fails the test if helm fails. */
  static String template(String release, String namespace, String... extraArgs) {
    List<String> args = new ArrayList<>(List.of("template", release, CHART.toString()));
    args.addAll(List.of("--namespace", namespace));
    args.addAll(List.of(extraArgs));
    Result result = run(args.toArray(String[]::new));
    if (result.exitCode() != 0) {
      throw new AssertionError("helm " + String.join(" ", args) + " failed:\n" + result.output());
    }
    return result.stdout();
  }
}
