package dev.berth.operator.local;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Local mode's cluster: an embedded API server with Berth's CRDs and the stand-in JobSet CRD, and
 * a kube-controller-manager for RBAC aggregation, service accounts and namespaces. Its admin
 * certificate is the operator's identity; people get kubeconfigs of their own
 * ({@link LocalIdentities}).
 */
final class LocalCluster implements AutoCloseable {
  /** The user of kube-api-test's admin certificate, which the local operator runs as. */
  static final String ADMIN_USER = "kubeapitest";

  private final EmbeddedApiServer server;
  private final ControllerManager controllers;

  private LocalCluster(EmbeddedApiServer server, ControllerManager controllers) {
    this.server = server;
    this.controllers = controllers;
  }

  /** {@code workDir} keeps the controller manager's kubeconfig and log. */
  static LocalCluster start(Path workDir) throws IOException {
    EmbeddedApiServer server = EmbeddedApiServer.start();
    ControllerManager controllers;
    try {
      controllers = ControllerManager.start(server.client(), server.kubeconfig(), workDir);
    } catch (RuntimeException | IOException e) {
      server.close();
      throw e;
    }
    List<CustomResourceDefinition> crds = new ArrayList<>(EmbeddedApiServer.berthCrds());
    crds.add(EmbeddedApiServer.jobSetCrd());
    server.install(crds);
    return new LocalCluster(server, controllers);
  }

  /** The operator's client (kube-api-test's admin certificate). */
  KubernetesClient client() {
    return server.client();
  }

  @Override
  public void close() {
    controllers.close();
    server.close();
  }
}
