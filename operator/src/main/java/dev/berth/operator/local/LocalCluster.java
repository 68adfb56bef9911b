package dev.berth.operator.local;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Local mode's cluster: an embedded API server with Berth's CRDs and the stand-in JobSet CRD, its
 * kubeconfig written where kubectl can use it.
 */
final class LocalCluster implements AutoCloseable {
  /** The user of kube-api-test's admin certificate, which the local operator runs as. */
  static final String ADMIN_USER = "kubeapitest";

  private final EmbeddedApiServer server;
  private final Path kubeconfig;

  private LocalCluster(EmbeddedApiServer server, Path kubeconfig) {
    this.server = server;
    this.kubeconfig = kubeconfig;
  }

  static LocalCluster start(Path kubeconfigPath) throws IOException {
    EmbeddedApiServer server = EmbeddedApiServer.start();
    Files.createDirectories(kubeconfigPath.getParent());
    Files.writeString(kubeconfigPath, server.kubeconfig());
    List<CustomResourceDefinition> crds = new ArrayList<>(EmbeddedApiServer.berthCrds());
    crds.add(EmbeddedApiServer.jobSetCrd());
    server.install(crds);
    return new LocalCluster(server, kubeconfigPath);
  }

  KubernetesClient client() {
    return server.client();
  }

  Path kubeconfig() {
    return kubeconfig;
  }

  @Override
  public void close() {
    server.close();
  }
}
