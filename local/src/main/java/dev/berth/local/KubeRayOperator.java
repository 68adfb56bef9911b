package dev.berth.local;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The real KubeRay operator (github.com/ray-project/kuberay/ray-operator), built by
 * scripts/kuberay-binary.sh from the Go module proxy, with the CRDs of the same module: it creates
 * a RayCluster's head and worker pods, deletes them when the cluster is suspended, and runs a
 * RayJob (its RayCluster, its submitter Job, its status). Its own webhook is off, as KubeRay ships
 * it (ENABLE_WEBHOOKS unset), so it needs no certificate. KWOK's pods run no Ray, so no Ray
 * dashboard answers: its RayJob reconciler polls a stand-in of the dashboard instead
 * (scripts/kuberay/standin_dashboard.go), which reports a RayJob's Ray job as its submitter Job
 * shows it, and KubeRay marks the RayJob Complete or Failed by its own rules (docs/ray.md).
 */
public final class KubeRayOperator implements AutoCloseable {
  /** Pinned in scripts/kuberay-binary.sh too, which builds it. */
  public static final String VERSION = "1.5.0";

  /**
   * The revision of scripts/kuberay/ the binary is built from (BUILD in scripts/kuberay-binary.sh):
   * part of the cache directory, so that a binary built from older code is not used.
   */
  public static final String BUILD = "berth2";

  private static final List<String> CRDS =
      List.of("ray.io_rayclusters.yaml", "ray.io_rayjobs.yaml", "ray.io_rayservices.yaml");
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);

  /** The user KubeRay acts as: its service account, as KubeRay's Helm chart installs it. */
  public static final String IDENTITY = "system:serviceaccount:ray-system:kuberay-operator";

  private final LoggedProcess process;

  private KubeRayOperator(LoggedProcess process) {
    this.process = process;
  }

  /** Whether scripts/kuberay-binary.sh has installed the operator and its CRDs. */
  public static boolean built() {
    return Files.isExecutable(dir().resolve("kuberay-operator"))
        && CRDS.stream().allMatch(crd -> Files.isRegularFile(dir().resolve(crd)));
  }

  /**
   * The operator if it is built (see {@link #built()}), started and ready; empty if not. Installs
   * KubeRay's CRDs (replacing the stand-in ones) first: it watches RayServices too, and does not
   * start without their API.
   */
  public static Optional<KubeRayOperator> startIfBuilt(
      KubernetesClient admin, Path kubeconfig, Path logDir) throws IOException {
    if (!built()) {
      return Optional.empty();
    }
    List<CustomResourceDefinition> crds = new ArrayList<>();
    for (String file : CRDS) {
      crds.add(
          Serialization.unmarshal(
              Files.readString(dir().resolve(file)), CustomResourceDefinition.class));
    }
    EmbeddedApiServer.install(admin, crds);
    // As its own service account: Berth's webhooks see KubeRay's writes as in a cluster.
    Path asKubeRay =
        ServiceAccountKubeconfig.write(kubeconfig, IDENTITY, logDir.resolve("kuberay.kubeconfig"));
    int probePort = ControllerWebhooks.freePort();
    // No leader election (one operator), no metrics endpoint (nothing scrapes it).
    LoggedProcess process =
        LoggedProcess.start(
            "kuberay-operator",
            List.of(
                dir().resolve("kuberay-operator").toString(),
                "--kubeconfig=" + asKubeRay,
                "--enable-leader-election=false",
                "--metrics-addr=0",
                "--health-probe-bind-address=127.0.0.1:" + probePort,
                "--log-stdout-encoder=console"),
            logDir.resolve("kuberay-operator.log"));
    KubeRayOperator operator = new KubeRayOperator(process);
    try {
      process.awaitReady(probePort, READY_TIMEOUT);
    } catch (RuntimeException e) {
      operator.close();
      throw e;
    }
    return Optional.of(operator);
  }

  private static Path dir() {
    return Binaries.cacheDir().resolve("kuberay").resolve("v" + VERSION + "-" + BUILD);
  }

  public Path log() {
    return process.log();
  }

  public void checkAlive() {
    process.checkAlive();
  }

  @Override
  public void close() {
    process.close();
  }
}
