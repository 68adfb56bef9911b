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

  private LocalCluster(
      EmbeddedApiServer server, LocalControlPlane plane, Optional<LwsController> lws) {
    this.server = server;
    this.plane = plane;
    this.lws = lws;
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
      server.install(crds);
      LocalControlPlane plane =
          LocalControlPlane.start(
              server.client(),
              server.kubeconfig(),
              workDir,
              SimulatedNodes.nodes(),
              Optional.of(runFor));
      try {
        // Only when already built: local mode never waits minutes for a build it may not need.
        return new LocalCluster(
            server,
            plane,
            LwsController.startIfBuilt(
                server.client(), workDir.resolve("admin.kubeconfig"), workDir));
      } catch (RuntimeException | IOException e) {
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

  @Override
  public void close() {
    lws.ifPresent(LwsController::close);
    plane.close();
    server.close();
  }
}
