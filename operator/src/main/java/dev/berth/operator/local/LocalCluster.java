package dev.berth.operator.local;

import io.fabric8.kubeapitest.KubeAPIServer;
import io.fabric8.kubeapitest.KubeAPIServerConfigBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * An embedded kube-apiserver and etcd (the binaries the tests use), with Berth's CRDs and a
 * stand-in JobSet CRD installed, and its kubeconfig written where kubectl can use it.
 */
final class LocalCluster implements AutoCloseable {
  private static final String[] BERTH_CRDS = {
    "resourceflavors", "topologies", "cohorts", "clusterqueues", "localqueues",
    "workloadpriorityclasses", "workloads"
  };

  /** The user of kube-api-test's admin certificate, which the local operator runs as. */
  static final String ADMIN_USER = "kubeapitest";

  private final KubeAPIServer server;
  private final KubernetesClient client;
  private final Path kubeconfig;

  private LocalCluster(KubeAPIServer server, KubernetesClient client, Path kubeconfig) {
    this.server = server;
    this.client = client;
    this.kubeconfig = kubeconfig;
  }

  static LocalCluster start(Path kubeconfigPath) throws IOException {
    KubeAPIServer server =
        new KubeAPIServer(
            KubeAPIServerConfigBuilder.anAPIServerConfig()
                .withOfflineMode(true)
                .withUpdateKubeConfig(false)
                .build());
    try {
      server.start();
    } catch (RuntimeException e) {
      throw new IllegalStateException(
          "cannot start the embedded kube-apiserver ("
              + e.getMessage()
              + "). Build its binaries once with scripts/kube-binaries.sh (needs Go 1.26+).",
          e);
    }
    Files.createDirectories(kubeconfigPath.getParent());
    Files.writeString(kubeconfigPath, server.getKubeConfigYaml());
    KubernetesClient client =
        new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(server.getKubeConfigYaml())).build();
    LocalCluster cluster = new LocalCluster(server, client, kubeconfigPath);
    cluster.installCrds();
    return cluster;
  }

  KubernetesClient client() {
    return client;
  }

  Path kubeconfig() {
    return kubeconfig;
  }

  private void installCrds() throws IOException {
    List<CustomResourceDefinition> crds = new ArrayList<>();
    for (String plural : BERTH_CRDS) {
      crds.add(crd("META-INF/fabric8/" + plural + ".berth.dev-v1.yml"));
    }
    crds.add(crd("local/jobset-crd.yaml"));
    for (CustomResourceDefinition crd : crds) {
      client.apiextensions().v1().customResourceDefinitions().resource(crd).serverSideApply();
    }
    for (CustomResourceDefinition crd : crds) {
      client
          .apiextensions()
          .v1()
          .customResourceDefinitions()
          .withName(crd.getMetadata().getName())
          .waitUntilCondition(
              c ->
                  c != null
                      && c.getStatus() != null
                      && c.getStatus().getConditions().stream()
                          .anyMatch(x -> "Established".equals(x.getType()) && "True".equals(x.getStatus())),
              60,
              TimeUnit.SECONDS);
    }
  }

  private static CustomResourceDefinition crd(String resource) throws IOException {
    try (InputStream in = LocalCluster.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException(resource + " is missing from the jar");
      }
      return Serialization.unmarshal(new String(in.readAllBytes(), StandardCharsets.UTF_8), CustomResourceDefinition.class);
    }
  }

  @Override
  public void close() {
    client.close();
    server.stop();
  }
}
