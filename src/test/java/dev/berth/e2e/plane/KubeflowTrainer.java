package dev.berth.e2e.plane;

import dev.berth.local.EmbeddedApiServer;
import dev.berth.local.LoggedProcess;
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
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Kubeflow Trainer's controller manager (github.com/kubeflow/trainer/v2: the TrainJob,
 * TrainingRuntime and ClusterTrainingRuntime controllers), built by scripts/trainer-binary.sh from
 * the Go module proxy and the JobSet v0.8.2 API source of ../shared/third-party, with the same
 * version's CRDs: it makes a TrainJob's JobSet from its runtime, suspends and resumes it with the
 * TrainJob, and copies its status and end. Without its webhooks (they need a certificate rotator
 * that cannot run outside a Pod; docs/trainjob.md). Started only by the test classes that run
 * TrainJobs ({@link ControlPlane#trainer}), which build it on first use.
 */
final class KubeflowTrainer implements AutoCloseable {
  /** Pinned in scripts/trainer-binary.sh too, which builds it. */
  static final String VERSION = "2.0.0";

  /** The JobSet API source the Trainer module needs (not on the Go proxy here). */
  static final String JOBSET_API_TARBALL = "jobset-v0.8.2.tar.gz";

  private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);

  private final LoggedProcess process;

  private KubeflowTrainer(LoggedProcess process) {
    this.process = process;
  }

  private static Path dir() {
    String cache = System.getenv("KUBE_API_TEST_DIR");
    return Path.of(cache != null ? cache : System.getProperty("user.home") + "/.kubeapitest")
        .resolve("trainer")
        .resolve("v" + VERSION);
  }

  private static boolean built() {
    return Files.isExecutable(dir().resolve("trainer-controller-manager"))
        && Files.isRegularFile(dir().resolve("crds/trainer.kubeflow.org_trainjobs.yaml"));
  }

  /**
   * Runs scripts/trainer-binary.sh --optional (a no-op once built), failing with its output; false
   * only when there are no third-party sources at all, which the script says loudly.
   */
  private static boolean build(Path logDir) throws IOException {
    if (built()) {
      return true;
    }
    Path script =
        Path.of(System.getProperty("berth.repo", ".."))
            .resolve("scripts/trainer-binary.sh")
            .toAbsolutePath()
            .normalize();
    Path log = logDir.resolve("trainer-build.log");
    long started = System.nanoTime();
    Process build =
        new ProcessBuilder("bash", script.toString(), "--optional")
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    try {
      if (!build.waitFor(30, TimeUnit.MINUTES)) {
        build.destroyForcibly();
        throw new IllegalStateException(script + " did not finish within 30 min; log " + log);
      }
      if (build.exitValue() != 0 || (!built() && ThirdParty.present())) {
        throw new IllegalStateException(
            script + " failed (exit " + build.exitValue() + "):\n" + Files.readString(log));
      }
    } catch (InterruptedException e) {
      build.destroy();
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted building Kubeflow Trainer", e);
    }
    System.out.println(Files.readString(log));
    if (!built()) {
      return false;
    }
    System.out.printf(
        "[berth-test] Kubeflow Trainer v%s built in %d s; log %s%n",
        VERSION, Duration.ofNanos(System.nanoTime() - started).toSeconds(), log);
    return true;
  }

  /**
   * Builds it if needed, installs its CRDs (replacing the stand-ins) and starts it, ready; empty
   * only on a machine without the third-party sources.
   */
  static Optional<KubeflowTrainer> start(KubernetesClient admin, Path kubeconfig, Path logDir)
      throws IOException {
    if (!build(logDir)) {
      return Optional.empty();
    }
    List<CustomResourceDefinition> crds = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir().resolve("crds"))) {
      for (Path file : files.sorted().toList()) {
        crds.add(Serialization.unmarshal(Files.readString(file), CustomResourceDefinition.class));
      }
    }
    EmbeddedApiServer.install(admin, crds);
    int probePort;
    try (ServerSocket socket = new ServerSocket(0)) {
      probePort = socket.getLocalPort();
    }
    LoggedProcess process =
        LoggedProcess.start(
            "trainer",
            List.of(
                dir().resolve("trainer-controller-manager").toString(),
                "--kubeconfig=" + kubeconfig,
                "--metrics-bind-address=0",
                "--health-probe-bind-address=127.0.0.1:" + probePort),
            logDir.resolve("trainer.log"));
    KubeflowTrainer trainer = new KubeflowTrainer(process);
    try {
      process.awaitReady(probePort, READY_TIMEOUT);
    } catch (RuntimeException e) {
      trainer.close();
      throw e;
    }
    return Optional.of(trainer);
  }

  void checkAlive() {
    process.checkAlive();
  }

  @Override
  public void close() {
    process.close();
  }
}
