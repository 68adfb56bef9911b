package dev.berth.e2e;

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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One real kube-apiserver and etcd for the whole test JVM, with Berth's CRDs installed. Starting
 * the pair takes seconds, so test classes share it and keep apart by namespace and name.
 *
 * <p>The binaries come from scripts/kube-binaries.sh (run by the build); there is deliberately no
 * fallback to a mock server: a missing binary fails the run with the way to get it.
 */
public final class TestApiServer {
  private static final String[] CRD_FILES = {
    "resourceflavors", "topologies", "cohorts", "clusterqueues", "localqueues",
    "workloadpriorityclasses", "workloads"
  };

  private static Cluster shared;

  private TestApiServer() {}

  /** A running API server with Berth's CRDs, and an admin client for it. */
  public record Cluster(KubeAPIServer server, KubernetesClient client, String kubeconfig)
      implements AutoCloseable {
    @Override
    public void close() {
      client.close();
      server.stop();
    }
  }

  /** The shared client, admin on the test server; the server starts on first use. */
  public static synchronized KubernetesClient client() {
    if (shared == null) {
      shared = launch();
      Runtime.getRuntime().addShutdownHook(new Thread(shared::close, "kube-apiserver-stop"));
    }
    return shared.client();
  }

  public static synchronized String kubeconfigYaml() {
    client();
    return shared.kubeconfig();
  }

  /** A server of one's own, for tests that must not share (leader election, webhooks). */
  public static Cluster dedicated() {
    return launch();
  }

  private static Cluster launch() {
    long started = System.nanoTime();
    System.out.println("[berth-test] starting kube-apiserver and etcd (fabric8 kube-api-test)");
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
          "Cannot start kube-apiserver: "
              + e.getMessage()
              + ". Run scripts/kube-binaries.sh (needs Go 1.26+) to build kube-apiserver, etcd and"
              + " kubectl into ~/.kubeapitest/k8s/<version>-linux-amd64/, or set KUBE_API_TEST_DIR.",
          e);
    }
    String kubeconfig = server.getKubeConfigYaml();
    KubernetesClient client =
        new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(kubeconfig)).build();
    System.out.printf(
        "[berth-test] kube-apiserver %s ready in %d ms%n",
        client.getKubernetesVersion().getGitVersion(),
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
    installCrds(client);
    return new Cluster(server, client, kubeconfig);
  }

  /** The generated CRDs, as packaged in the berth-api jar. */
  public static List<CustomResourceDefinition> berthCrds() {
    List<CustomResourceDefinition> crds = new ArrayList<>();
    for (String plural : CRD_FILES) {
      String path = "META-INF/fabric8/" + plural + ".berth.dev-v1.yml";
      try (InputStream in = TestApiServer.class.getClassLoader().getResourceAsStream(path)) {
        if (in == null) {
          throw new IllegalStateException(path + " is not on the classpath; build api first");
        }
        crds.add(
            Serialization.unmarshal(
                new String(in.readAllBytes(), StandardCharsets.UTF_8),
                CustomResourceDefinition.class));
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }
    return crds;
  }

  private static void installCrds(KubernetesClient client) {
    List<CustomResourceDefinition> crds = new ArrayList<>(berthCrds());
    crds.add(jobSetCrd());
    for (CustomResourceDefinition crd : crds) {
      client.apiextensions().v1().customResourceDefinitions().resource(crd).serverSideApply();
    }
    for (CustomResourceDefinition crd : crds) {
      client
          .apiextensions()
          .v1()
          .customResourceDefinitions()
          .withName(crd.getMetadata().getName())
          .waitUntilCondition(TestApiServer::established, 60, TimeUnit.SECONDS);
    }
  }

  /** A stand-in for the JobSet project's CRD, so the JobSet integration switches on. */
  private static CustomResourceDefinition jobSetCrd() {
    try (InputStream in = TestApiServer.class.getClassLoader().getResourceAsStream("jobset-crd.yaml")) {
      return Serialization.unmarshal(
          new String(in.readAllBytes(), StandardCharsets.UTF_8), CustomResourceDefinition.class);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  static boolean established(CustomResourceDefinition crd) {
    return crd != null
        && crd.getStatus() != null
        && crd.getStatus().getConditions() != null
        && crd.getStatus().getConditions().stream()
            .anyMatch(c -> "Established".equals(c.getType()) && "True".equals(c.getStatus()));
  }


}
