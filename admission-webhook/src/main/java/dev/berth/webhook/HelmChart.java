package dev.berth.webhook;

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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Berth's Helm chart in a checkout of the repository, rendered by the helm binary the build makes
 * (scripts/helm-binary.sh). Off a cluster (local mode, the tests, the benchmarks) this is how the
 * chart's objects are had: exactly what {@code helm install} would send.
 *
 * @param repo the checkout's root (it holds helm/berth and scripts/helm-binary.sh)
 * @param helm the helm executable
 */
public record HelmChart(Path repo, Path helm) {
  private static final String CHART_FILE = "helm/berth/Chart.yaml";
  private static final String HELM_SCRIPT = "scripts/helm-binary.sh";
  private static final Pattern PIN =
      Pattern.compile("HELM_VERSION=\"\\$\\{BERTH_HELM_VERSION:-([0-9.]+)}\"");

  /**
   * The checkout and helm as the build and ./berth leave them: the repository is the system
   * property {@code berth.repo}, else the working directory or the nearest directory above it
   * holding helm/berth/Chart.yaml; helm is the system property {@code berth.helm} (moved under
   * $KUBE_API_TEST_DIR when that is set), else the version pinned in scripts/helm-binary.sh under
   * $KUBE_API_TEST_DIR (default ~/.kubeapitest), where that script installs it.
   *
   * @throws IllegalStateException naming what is missing and how to get it
   */
  public static HelmChart locate() {
    Path repo = repository();
    // berth.helm names the version directory (src/test/pom.xml sets it); $KUBE_API_TEST_DIR
    // moves the cache, as scripts/helm-binary.sh honours it.
    String configured = System.getProperty("berth.helm");
    String version =
        configured != null && !configured.isBlank()
            ? Path.of(configured).getParent().getFileName().toString()
            : pinnedVersion(repo);
    Path helm =
        configured != null && !configured.isBlank() && System.getenv("KUBE_API_TEST_DIR") == null
            ? Path.of(configured)
            : cacheDir().resolve("helm").resolve(version).resolve("helm");
    if (!Files.isExecutable(helm)) {
      throw new IllegalStateException(
          "helm is missing at "
              + helm
              + "; run scripts/helm-binary.sh in "
              + repo
              + " (needs Go), which builds the pinned version there");
    }
    return new HelmChart(repo, helm);
  }

  public Path chartDirectory() {
    return repo.resolve("helm/berth");
  }

  /** What one helm command printed, and how it ended. */
  public record Result(int exitCode, String stdout, String stderr) {
    public String output() {
      return stdout + stderr;
    }
  }

  /**
   * {@code helm template <release> helm/berth --namespace <namespace> [args...]}: what it printed,
   * or an exception with helm's own message (a value the schema refuses, say) when it failed.
   */
  public String template(String release, String namespace, List<String> args) {
    List<String> command = new ArrayList<>();
    command.addAll(List.of("template", release, chartDirectory().toString()));
    command.addAll(List.of("--namespace", namespace));
    command.addAll(args);
    Result result = run(command);
    if (result.exitCode() != 0) {
      throw new IllegalArgumentException(
          helm + " " + String.join(" ", command) + " failed:\n" + result.output());
    }
    return result.stdout();
  }

  /**
   * Runs {@code helm <args...>} in the checkout, away from any cluster and from the user's helm
   * configuration, and returns what it printed, whatever its exit code.
   */
  public Result run(List<String> args) {
    List<String> command = new ArrayList<>();
    command.add(helm.toString());
    command.addAll(args);
    Path home = null;
    try {
      home = Files.createTempDirectory("berth-helm-");
      ProcessBuilder pb = new ProcessBuilder(command).directory(repo.toFile());
      // Keep helm's config, cache and data out of the user's home and away from any cluster:
      // template and lint read the chart and nothing else.
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
        throw new IllegalStateException(String.join(" ", command) + " timed out after 120 s");
      }
      return new Result(
          process.exitValue(),
          Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running helm", e);
    } finally {
      deleteTree(home); // nothing of a helm run stays behind in the temporary directory
    }
  }

  private static Path repository() {
    String configured = System.getProperty("berth.repo");
    if (configured != null && !configured.isBlank()) {
      Path repo = Path.of(configured).toAbsolutePath().normalize();
      if (!Files.isRegularFile(repo.resolve(CHART_FILE))) {
        throw new IllegalStateException(
            "berth.repo=" + configured + " is not a Berth checkout: no " + CHART_FILE);
      }
      return repo;
    }
    Path cwd = Path.of("").toAbsolutePath().normalize();
    for (Path dir = cwd; dir != null; dir = dir.getParent()) {
      if (Files.isRegularFile(dir.resolve(CHART_FILE))) {
        return dir;
      }
    }
    throw new IllegalStateException(
        "no Berth checkout (" + CHART_FILE + ") in " + cwd + " or above; set -Dberth.repo=DIR");
  }

  private static String pinnedVersion(Path repo) {
    try {
      Matcher m = PIN.matcher(Files.readString(repo.resolve(HELM_SCRIPT)));
      if (!m.find()) {
        throw new IllegalStateException("no HELM_VERSION pin in " + repo.resolve(HELM_SCRIPT));
      }
      return m.group(1);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** $KUBE_API_TEST_DIR, or ~/.kubeapitest, where scripts/helm-binary.sh installs helm. */
  private static Path cacheDir() {
    String dir = System.getenv("KUBE_API_TEST_DIR");
    return dir != null && !dir.isBlank()
        ? Path.of(dir)
        : Path.of(System.getProperty("user.home"), ".kubeapitest");
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
}
