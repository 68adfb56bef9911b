package dev.berth.e2e.plane;

import dev.berth.local.EmbeddedApiServer;
import dev.berth.local.LoggedProcess;
import dev.berth.local.ServiceAccountKubeconfig;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The Kubeflow training operator (github.com/kubeflow/training-operator, its v1 job controllers),
 * built by scripts/training-operator-binary.sh from the Go module proxy, with the same version's
 * PyTorchJob and MPIJob CRDs: it creates a job's pods and services, deletes them when the job is
 * suspended, and marks the job Running, Succeeded or Failed. Only the PyTorchJob and MPIJob
 * controllers run ({@code --enable-scheme}), without the operator's validating webhooks (they need
 * a certificate rotator that cannot run outside a Pod; docs/kubeflow.md). Started only by the test
 * classes that run those jobs ({@link ControlPlane#startTrainingOperator}), which build it on first
 * use: the module proxy serves it to every machine, so it is never stood in for.
 */
final class TrainingOperator implements AutoCloseable {
  /** Pinned in scripts/training-operator-binary.sh too, which builds it. */
  static final String VERSION = "1.8.1";

  private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);

  private final LoggedProcess process;

  private TrainingOperator(LoggedProcess process) {
    this.process = process;
  }

  private static Path dir() {
    String cache = System.getenv("KUBE_API_TEST_DIR");
    return Path.of(cache != null ? cache : System.getProperty("user.home") + "/.kubeapitest")
        .resolve("training-operator")
        .resolve("v" + VERSION);
  }

  private static boolean built() {
    return Files.isExecutable(dir().resolve("training-operator"))
        && Files.isRegularFile(dir().resolve("pytorchjob-crd.yaml"))
        && Files.isRegularFile(dir().resolve("mpijob-crd.yaml"));
  }

  /** Runs scripts/training-operator-binary.sh (a no-op once built), failing with its output. */
  private static void build(Path logDir) throws IOException {
    if (built()) {
      return;
    }
    Path script =
        Path.of(System.getProperty("berth.repo", ".."))
            .resolve("scripts/training-operator-binary.sh")
            .toAbsolutePath()
            .normalize();
    Path log = logDir.resolve("training-operator-build.log");
    long started = System.nanoTime();
    Process build =
        new ProcessBuilder("bash", script.toString())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    try {
      int exit = build.waitFor();
      if (exit != 0 || !built()) {
        throw new IllegalStateException(
            script + " failed (exit " + exit + "):\n" + Files.readString(log));
      }
    } catch (InterruptedException e) {
      build.destroy();
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted building the training operator", e);
    }
    System.out.printf(
        "[berth-test] training operator v%s built in %d s; log %s%n",
        VERSION, Duration.ofNanos(System.nanoTime() - started).toSeconds(), log);
  }

  /**
   * The user the operator acts as: its service account, as its standalone manifests install it
   * (namespace kubeflow). Its pods then reach Berth's webhooks as in a cluster, not as the admin,
   * which is also the operator's identity here.
   */
  static final String IDENTITY = "system:serviceaccount:kubeflow:training-operator";

  /** Builds it if needed, installs its CRDs (replacing the stand-ins) and starts it, ready. */
  static TrainingOperator start(KubernetesClient admin, Path kubeconfig, Path logDir)
      throws IOException {
    build(logDir);
    List<CustomResourceDefinition> crds = new ArrayList<>();
    for (String file : List.of("pytorchjob-crd.yaml", "mpijob-crd.yaml")) {
      crds.add(
          Serialization.unmarshal(
              Files.readString(dir().resolve(file)), CustomResourceDefinition.class));
    }
    EmbeddedApiServer.install(admin, crds);
    int probePort;
    try (ServerSocket socket = new ServerSocket(0)) {
      probePort = socket.getLocalPort();
    }
    LoggedProcess process =
        LoggedProcess.start(
            "training-operator",
            List.of(
                dir().resolve("training-operator").toString(),
                "--kubeconfig="
                    + ServiceAccountKubeconfig.write(
                        kubeconfig, IDENTITY, logDir.resolve("training-operator.kubeconfig")),
                "--enable-scheme=pytorchjob",
                "--enable-scheme=mpijob",
                "--metrics-bind-address=0",
                "--health-probe-bind-address=127.0.0.1:" + probePort),
            logDir.resolve("training-operator.log"));
    TrainingOperator operator = new TrainingOperator(process);
    try {
      operator.awaitReady(probePort);
    } catch (RuntimeException e) {
      operator.close();
      throw e;
    }
    return operator;
  }

  /** Its readiness endpoint answers once the manager runs. */
  private void awaitReady(int probePort) {
    process.awaitReady(probePort, READY_TIMEOUT);
  }

  void checkAlive() {
    process.checkAlive();
  }

  @Override
  public void close() {
    process.close();
  }
}
