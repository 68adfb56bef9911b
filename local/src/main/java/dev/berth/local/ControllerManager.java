package dev.berth.local;

import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real kube-controller-manager next to an {@link EmbeddedApiServer}, running the controllers that
 * make RBAC and namespaces behave as on a cluster: ClusterRole aggregation (so the built-in {@code
 * edit} role and the chart's aggregated roles have rules), service accounts, namespace deletion and
 * garbage collection. Built by scripts/kube-binaries.sh beside kube-apiserver.
 */
public final class ControllerManager implements AutoCloseable {
  /** The controllers a team's view of a cluster depends on; the Job controller is not one yet. */
  public static final List<String> CONTROLLERS =
      List.of(
          "clusterrole-aggregation-controller",
          "serviceaccount-controller",
          "namespace-controller",
          "garbage-collector-controller");

  /**
   * The user the Job controller writes as (its pods, for one): with service-account credentials
   * each controller acts as its own service account in kube-system, as kubeadm runs them.
   */
  public static final String JOB_CONTROLLER_IDENTITY =
      "system:serviceaccount:kube-system:job-controller";

  private final LoggedProcess process;

  private ControllerManager(LoggedProcess process) {
    this.process = process;
  }

  /**
   * Starts it with the given admin kubeconfig and waits until ClusterRole aggregation has run (the
   * built-in {@code edit} role has rules).
   */
  public static ControllerManager start(KubernetesClient admin, String kubeconfig, Path workDir)
      throws IOException {
    return start(admin, kubeconfig, workDir, CONTROLLERS);
  }

  /**
   * Starts it running the given controllers (names as in {@code --controllers}, e.g. {@code
   * job-controller}); the list must hold {@code clusterrole-aggregation-controller}, whose first
   * pass is how this waits until the manager is up.
   */
  public static ControllerManager start(
      KubernetesClient admin, String kubeconfig, Path workDir, List<String> controllers)
      throws IOException {
    return start(admin, kubeconfig, workDir, controllers, Optional.empty());
  }

  /** As above, with the settings of {@code rate} for a control plane of thousands of Jobs. */
  public static ControllerManager start(
      KubernetesClient admin,
      String kubeconfig,
      Path workDir,
      List<String> controllers,
      Optional<ControlPlaneScale> rate)
      throws IOException {
    if (!controllers.contains("clusterrole-aggregation-controller")) {
      throw new IllegalArgumentException(
          "controllers "
              + controllers
              + " lack clusterrole-aggregation-controller, which start() waits on");
    }
    Files.createDirectories(workDir);
    Path config = workDir.resolve("controller-manager.kubeconfig");
    Files.writeString(config, kubeconfig, StandardCharsets.UTF_8);
    Path log = workDir.resolve("kube-controller-manager.log");
    List<String> command =
        new ArrayList<>(
            List.of(
                binary().toString(),
                "--kubeconfig=" + config,
                "--controllers=" + String.join(",", controllers),
                "--leader-elect=false",
                // No serving port: nothing scrapes it here, and a fixed port would clash between
                // runs.
                "--secure-port=0",
                // Each controller as its own service account (a token the API server issues through
                // the TokenRequest API, with the API server's built-in RBAC for it), as kubeadm
                // runs it: the admin's certificate is also the operator's identity here, and a Job
                // controller acting as it would create pods that pass every rule Berth keeps for
                // what its operator writes.
                "--use-service-account-credentials=true",
                "--v=1"));
    rate.ifPresent(r -> command.addAll(r.controllerManagerFlags()));
    ControllerManager manager =
        new ControllerManager(LoggedProcess.start("kube-controller-manager", command, log));
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
      admin
          .rbac()
          .clusterRoles()
          .withName(clusterRole)
          .waitUntilCondition(r -> aggregated(r) || !process.alive(), seconds, TimeUnit.SECONDS);
    } catch (RuntimeException e) {
      throw new IllegalStateException(
          "ClusterRole "
              + clusterRole
              + " not aggregated within "
              + seconds
              + " s; kube-controller-manager log: "
              + process.tail(),
          e);
    }
    process.checkAlive();
  }

  private static boolean aggregated(ClusterRole role) {
    return role != null && role.getRules() != null && !role.getRules().isEmpty();
  }

  public Path log() {
    return process.log();
  }

  /**
   * kube-controller-manager from the same directory kube-api-test takes kube-apiserver from: the
   * newest version there that has it.
   */
  static Path binary() {
    return binary("kube-controller-manager");
  }

  /**
   * A Kubernetes binary (kube-scheduler, kube-controller-manager) from the newest version directory
   * under ~/.kubeapitest/k8s (or $KUBE_API_TEST_DIR/k8s) that has it.
   */
  public static Path binary(String name) {
    String dir = System.getenv("KUBE_API_TEST_DIR");
    Path base =
        Path.of(dir != null ? dir : System.getProperty("user.home") + "/.kubeapitest")
            .resolve("k8s");
    try (Stream<Path> versions = Files.list(base)) {
      return versions
          .map(v -> v.resolve(name))
          .filter(Files::isExecutable)
          .max(
              Comparator.comparing(
                  p -> p.getParent().getFileName().toString(), ControllerManager::compareVersions))
          .orElseThrow(() -> missing(base, name));
    } catch (IOException e) {
      throw missing(base, name);
    }
  }

  private static IllegalStateException missing(Path base, String name) {
    return new IllegalStateException(
        "no "
            + name
            + " under "
            + base
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
    process.close();
  }
}
