package dev.berth.operator.local;

import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real kube-controller-manager next to an {@link EmbeddedApiServer}, running the controllers
 * that make RBAC and namespaces behave as on a cluster: ClusterRole aggregation (so the built-in
 * {@code edit} role and the chart's aggregated roles have rules), service accounts, namespace
 * deletion and garbage collection. Built by scripts/kube-binaries.sh beside kube-apiserver.
 */
public final class ControllerManager implements AutoCloseable {
  /** The controllers a team's view of a cluster depends on; the Job controller is not one yet. */
  public static final List<String> CONTROLLERS =
      List.of("clusterrole-aggregation-controller", "serviceaccount-controller",
          "namespace-controller", "garbage-collector-controller");

  private final Process process;
  private final Path log;

  private ControllerManager(Process process, Path log) {
    this.process = process;
    this.log = log;
  }

  /**
   * Starts it with the given admin kubeconfig and waits until ClusterRole aggregation has run
   * (the built-in {@code edit} role has rules).
   */
  public static ControllerManager start(KubernetesClient admin, String kubeconfig, Path workDir)
      throws IOException {
    Files.createDirectories(workDir);
    Path config = workDir.resolve("controller-manager.kubeconfig");
    Files.writeString(config, kubeconfig, StandardCharsets.UTF_8);
    Path log = workDir.resolve("kube-controller-manager.log");
    List<String> command = new ArrayList<>(List.of(
        binary().toString(),
        "--kubeconfig=" + config,
        "--controllers=" + String.join(",", CONTROLLERS),
        "--leader-elect=false",
        // No serving port: nothing scrapes it here, and a fixed port would clash between runs.
        "--secure-port=0",
        "--use-service-account-credentials=false",
        "--v=1"));
    Process process = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(log.toFile()).start();
    ControllerManager manager = new ControllerManager(process, log);
    try {
      manager.awaitAggregated(admin, "edit", 60);
    } catch (RuntimeException e) {
      manager.close();
      throw e;
    }
    return manager;
  }

  /** Waits until the aggregated ClusterRole has rules, or fails with the manager's log tail. */
  public void awaitAggregated(KubernetesClient admin, String clusterRole, int seconds) {
    try {
      admin.rbac().clusterRoles().withName(clusterRole).waitUntilCondition(
          r -> aggregated(r) || !process.isAlive(), seconds, TimeUnit.SECONDS);
    } catch (RuntimeException e) {
      throw new IllegalStateException("ClusterRole " + clusterRole + " not aggregated within "
          + seconds + " s; kube-controller-manager log: " + logTail(), e);
    }
    if (!process.isAlive()) {
      throw new IllegalStateException("kube-controller-manager exited with "
          + process.exitValue() + ": " + logTail());
    }
  }

  private static boolean aggregated(ClusterRole role) {
    return role != null && role.getRules() != null && !role.getRules().isEmpty();
  }

  public Path log() {
    return log;
  }

  private String logTail() {
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  /**
   * kube-controller-manager from the same directory kube-api-test takes kube-apiserver from: the
   * newest version there that has it.
   */
  static Path binary() {
    String dir = System.getenv("KUBE_API_TEST_DIR");
    Path base = Path.of(dir != null ? dir : System.getProperty("user.home") + "/.kubeapitest")
        .resolve("k8s");
    try (Stream<Path> versions = Files.list(base)) {
      return versions.map(v -> v.resolve("kube-controller-manager")).filter(Files::isExecutable)
          .max(Comparator.comparing(p -> p.getParent().getFileName().toString(),
              ControllerManager::compareVersions))
          .orElseThrow(() -> missing(base));
    } catch (IOException e) {
      throw missing(base);
    }
  }

  private static IllegalStateException missing(Path base) {
    return new IllegalStateException("no kube-controller-manager under " + base
        + ". Run scripts/kube-binaries.sh (needs Go 1.26+) to build it.");
  }

  /** Compares directory names such as 1.37.2-linux-amd64 by their numeric version. */
  static int compareVersions(String a, String b) {
    String[] x = a.split("-")[0].split("\\.");
    String[] y = b.split("-")[0].split("\\.");
    for (int i = 0; i < Math.max(x.length, y.length); i++) {
      int c = Integer.compare(i < x.length ? parse(x[i]) : 0, i < y.length ? parse(y[i]) : 0);
      if (c != 0) {
        return c;
      }
    }
    return 0;
  }

  private static int parse(String part) {
    try {
      return Integer.parseInt(part);
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}
