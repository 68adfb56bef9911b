package dev.berth.local;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Local mode's cluster: an embedded API server with Berth's CRDs, and the rest of a control plane
 * beside it ({@link LocalControlPlane}) running {@link SimulatedNodes}. Its admin certificate is
 * the operator's identity; people get kubeconfigs of their own ({@link LocalIdentities}).
 */
final class LocalCluster implements AutoCloseable {
  /** The user of kube-api-test's admin certificate, which the local operator runs as. */
  static final String ADMIN_USER = "kubeapitest";

  private final EmbeddedApiServer server;
  private final LocalControlPlane plane;

  /** The real LeaderWorkerSet controller, when scripts/lws-binary.sh has cached it. */
  private final Optional<LwsController> lws;

  /**
   * Kubeflow Trainer, when scripts/trainer-binary.sh has cached it and the real JobSet controller
   * runs the JobSets it makes.
   */
  private final Optional<KubeflowTrainer> trainer;

  private LocalCluster(
      EmbeddedApiServer server,
      LocalControlPlane plane,
      Optional<LwsController> lws,
      Optional<KubeflowTrainer> trainer) {
    this.server = server;
    this.plane = plane;
    this.lws = lws;
    this.trainer = trainer;
  }

  /**
   * {@code workDir} keeps the processes' kubeconfig and logs; a pod without a run-for annotation
   * succeeds {@code runFor} after it started.
   */
  static LocalCluster start(Path workDir, Duration runFor) throws IOException {
    EmbeddedApiServer server = EmbeddedApiServer.start();
    try {
      List<CustomResourceDefinition> crds = new ArrayList<>(EmbeddedApiServer.berthCrds());
      // Every kind of the registry can be created; JobSet's stand-in CRD is replaced by the
      // upstream one when the real JobSet controller runs.
      crds.addAll(EmbeddedApiServer.standInCrds());
      // Kubeflow Trainer's own, when built, in place of the stand-ins of the same names: installed
      // before kube-controller-manager starts, as KubeflowTrainer.crds says.
      List<CustomResourceDefinition> trainerCrds = KubeflowTrainer.crds();
      crds.removeIf(
          crd ->
              trainerCrds.stream()
                  .anyMatch(t -> t.getMetadata().getName().equals(crd.getMetadata().getName())));
      crds.addAll(trainerCrds);
      server.install(crds);
      LocalControlPlane plane =
          LocalControlPlane.start(
              server.client(),
              server.kubeconfig(),
              workDir,
              SimulatedNodes.nodes(),
              Optional.of(runFor));
      Optional<LwsController> lws = Optional.empty();
      try {
        // Only when already built: local mode never waits minutes for a build it may not need.
        Path kubeconfig = workDir.resolve("admin.kubeconfig");
        lws = LwsController.startIfBuilt(server.client(), kubeconfig, workDir);
        return new LocalCluster(
            server,
            plane,
            lws,
            plane.realJobSet()
                ? KubeflowTrainer.startIfBuilt(kubeconfig, workDir)
                : Optional.empty());
      } catch (RuntimeException | IOException e) {
        lws.ifPresent(LwsController::close);
        plane.close();
        throw e;
      }
    } catch (RuntimeException | IOException e) {
      server.close();
      throw e;
    }
  }

  /** The operator's client (kube-api-test's admin certificate). */
  KubernetesClient client() {
    return server.client();
  }

  LocalControlPlane plane() {
    return plane;
  }

  /** Whether the real LeaderWorkerSet controller runs. */
  boolean realLeaderWorkerSet() {
    return lws.isPresent();
  }

  /** Whether Kubeflow Trainer runs. */
  boolean realTrainer() {
    return trainer.isPresent();
  }

  @Override
  public void close() {
    trainer.ifPresent(KubeflowTrainer::close);
    lws.ifPresent(LwsController::close);
    plane.close();
    server.close();
  }
}
