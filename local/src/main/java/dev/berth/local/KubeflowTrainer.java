package dev.berth.local;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Kubeflow Trainer's controller manager (github.com/kubeflow/trainer/v2: the TrainJob,
 * TrainingRuntime and ClusterTrainingRuntime controllers), built by scripts/trainer-binary.sh from
 * the Go module proxy and the JobSet v0.8.2 API source of ../shared/third-party, with the same
 * version's CRDs: it makes a TrainJob's JobSet from its runtime, suspends and resumes it with the
 * TrainJob, and copies its JobSet's end as the TrainJob's. Without its webhooks (they need a
 * certificate rotator that cannot run outside a Pod; docs/trainjob.md). Its JobSets are run by the
 * real JobSet controller ({@link JobSetController}), which serves the v1alpha2 API the Trainer
 * writes. Local mode starts it only when already built; the suite's TrainJob tests build it first.
 */
public final class KubeflowTrainer implements AutoCloseable {
  /** Pinned in scripts/trainer-binary.sh too, which builds it. */
  public static final String VERSION = "2.0.0";

  /** The JobSet API source the Trainer module needs (not on the Go proxy here). */
  public static final String JOBSET_API_TARBALL = "jobset-v0.8.2.tar.gz";

  /**
   * The user the Trainer acts as: its service account, as its Helm chart (release kubeflow-trainer)
   * and its manifests install it.
   */
  public static final String IDENTITY =
      "system:serviceaccount:kubeflow-system:kubeflow-trainer-controller-manager";

  private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);

  private final LoggedProcess process;

  private KubeflowTrainer(LoggedProcess process) {
    this.process = process;
  }

  /** Where scripts/trainer-binary.sh installs it, for messages. */
  public static Path dir() {
    return Binaries.cacheDir().resolve("trainer").resolve("v" + VERSION);
  }

  /** Whether scripts/trainer-binary.sh has installed the controller manager and its CRDs. */
  public static boolean built() {
    return Files.isExecutable(dir().resolve("trainer-controller-manager"))
        && Files.isRegularFile(dir().resolve("crds/trainer.kubeflow.org_trainjobs.yaml"));
  }

  /**
   * Its CRDs (TrainJob and both runtimes), the same names as the stand-ins they replace; empty if
   * it is not built. Install them before kube-controller-manager starts: its garbage collector
   * looks for new kinds only every 30 s, and until it watches TrainJobs a deleted TrainJob's
   * JobSet, Jobs and pods run on.
   */
  public static List<CustomResourceDefinition> crds() throws IOException {
    if (!built()) {
      return List.of();
    }
    return EmbeddedApiServer.crdFiles(dir().resolve("crds"));
  }

  /**
   * The controller manager if it is built (see {@link #built()}), started and ready; empty if not.
   * Its {@link #crds()} must be installed already.
   */
  public static Optional<KubeflowTrainer> startIfBuilt(Path kubeconfig, Path logDir)
      throws IOException {
    if (!built()) {
      return Optional.empty();
    }
    Files.createDirectories(logDir);
    // As its own service account, so Berth's webhooks hold the JobSets it writes to their TrainJob
    // as in a cluster (the admin's certificate is also the operator's identity here).
    Path asTrainer =
        ServiceAccountKubeconfig.write(kubeconfig, IDENTITY, logDir.resolve("trainer.kubeconfig"));
    int probePort = ControllerWebhooks.freePort();
    return Optional.of(
        new KubeflowTrainer(
            LoggedProcess.startReady(
                "trainer",
                List.of(
                    dir().resolve("trainer-controller-manager").toString(),
                    "--kubeconfig=" + asTrainer,
                    "--metrics-bind-address=0",
                    "--health-probe-bind-address=127.0.0.1:" + probePort),
                logDir.resolve("trainer.log"),
                probePort,
                READY_TIMEOUT)));
  }

  public void checkAlive() {
    process.checkAlive();
  }

  @Override
  public void close() {
    process.close();
  }
}
