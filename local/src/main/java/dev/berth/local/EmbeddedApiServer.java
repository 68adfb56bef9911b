package dev.berth.local;

import dev.berth.webhook.integration.Framework;
import io.fabric8.kubeapitest.KubeAPIServer;
import io.fabric8.kubeapitest.KubeAPIServerConfigBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real kube-apiserver and etcd on this machine (fabric8 kube-api-test, offline: the binaries
 * scripts/kube-binaries.sh builds), with an admin client. Local mode runs on one, and so does every
 * API-server test. There is no fallback to a mock: missing binaries fail with how to get them.
 */
public final class EmbeddedApiServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedApiServer.class);
  private static final int START_ATTEMPTS = 3;
  private static final int CRD_APPLY_TIMEOUT_MS = 60_000;
  private static final List<String> BERTH_CRDS =
      List.of(
          "resourceflavors",
          "topologies",
          "cohorts",
          "admissionchecks",
          "provisioningrequestconfigs",
          "clusterqueues",
          "localqueues",
          "workloadpriorityclasses",
          "workloads",
          "usagereports",
          "budgets");

  private final KubeAPIServer server;
  private final KubernetesClient client;
  private final String kubeconfig;
  private final FrontProxyCertificates proxy;

  private EmbeddedApiServer(KubeAPIServer server, FrontProxyCertificates proxy) {
    this.server = server;
    this.proxy = proxy;
    this.kubeconfig = server.getKubeConfigYaml();
    this.client =
        dev.berth.operator.Clients.builder().withConfig(Config.fromKubeconfig(kubeconfig)).build();
  }

  /**
   * Starts etcd and kube-apiserver, trying again on fresh ports and data directories when a start
   * fails ({@link StartAttempts}): a port taken between kube-api-test's probe and the bind, or a
   * disk slow enough to hold etcd past the readiness timeout, should not fail a test run or local
   * mode. Every try's error is in the one thrown when none starts.
   */
  public static EmbeddedApiServer start() {
    return new StartAttempts<EmbeddedApiServer>(
            "kube-apiserver", START_ATTEMPTS, why -> LOG.warn("{}; trying again", why))
        .start(EmbeddedApiServer::startOnce, EmbeddedApiServer::startContext);
  }

  private static EmbeddedApiServer startOnce() {
    FrontProxyCertificates proxy = FrontProxyCertificates.create();
    KubeAPIServer server =
        new KubeAPIServer(
            KubeAPIServerConfigBuilder.anAPIServerConfig()
                .withOfflineMode(true)
                .withUpdateKubeConfig(false)
                .withApiServerFlags(proxy.apiServerFlags())
                // etcd's failures then read "etcd did not start", apart from kube-apiserver's.
                .withWaitForEtcdHealthCheckOnStartup(true)
                .build());
    try {
      server.start();
      return new EmbeddedApiServer(server, proxy);
    } catch (RuntimeException e) {
      // A failed start can leave etcd or kube-apiserver running; the next try must not meet them.
      try {
        server.stop();
      } catch (RuntimeException stopFailure) {
        e.addSuppressed(stopFailure);
      }
      proxy.delete();
      throw e;
    }
  }

  /** What the error of a start that failed every try adds: where to get binaries, free disk. */
  private static String startContext() {
    String tmp = System.getProperty("java.io.tmpdir");
    String free;
    try {
      free = (Files.getFileStore(Path.of(tmp)).getUsableSpace() >> 20) + " MiB free in " + tmp;
    } catch (IOException e) {
      free = "free space in " + tmp + " unknown (" + e.getMessage() + ")";
    }
    return free
        + "; missing binaries: run scripts/kube-binaries.sh (needs Go 1.26+) to build"
        + " kube-apiserver, etcd and kubectl into ~/.kubeapitest/k8s/<version>-linux-amd64/, or set"
        + " KUBE_API_TEST_DIR";
  }

  public KubernetesClient client() {
    return client;
  }

  public String kubeconfig() {
    return kubeconfig;
  }

  /** Installs CRDs (server-side apply) and waits until the API server serves each of them. */
  public EmbeddedApiServer install(List<CustomResourceDefinition> crds) {
    install(client, crds);
    return this;
  }

  /** Installs CRDs with the given client and waits until the API server serves each of them. */
  public static void install(KubernetesClient client, List<CustomResourceDefinition> crds) {
    // A CRD of a framework (KubeRay's RayJob: 1.3 MB of schema) can take the API server more
    // than the client's 10 s request timeout to apply on a loaded machine; one slow write should
    // not fail a start.
    try (KubernetesClient patient =
        dev.berth.operator.Clients.builder()
            .withConfig(
                new ConfigBuilder(client.getConfiguration())
                    .withRequestTimeout(CRD_APPLY_TIMEOUT_MS)
                    .build())
            .build()) {
      apply(patient, crds);
    }
    for (CustomResourceDefinition crd : crds) {
      client
          .apiextensions()
          .v1()
          .customResourceDefinitions()
          .withName(crd.getMetadata().getName())
          .waitUntilCondition(EmbeddedApiServer::established, 60, TimeUnit.SECONDS);
    }
  }

  private static void apply(KubernetesClient client, List<CustomResourceDefinition> crds) {
    for (CustomResourceDefinition crd : crds) {
      client
          .apiextensions()
          .v1()
          .customResourceDefinitions()
          .resource(crd)
          .fieldManager("berth")
          .forceConflicts()
          .serverSideApply();
    }
  }

  public static boolean established(CustomResourceDefinition crd) {
    return crd != null
        && crd.getStatus() != null
        && crd.getStatus().getConditions() != null
        && crd.getStatus().getConditions().stream()
            .anyMatch(c -> "Established".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  /** Berth's generated CRDs, as packaged in the berth-api jar. */
  public static List<CustomResourceDefinition> berthCrds() {
    List<CustomResourceDefinition> crds = new ArrayList<>();
    for (String plural : BERTH_CRDS) {
      crds.add(crd("META-INF/fabric8/" + plural + ".berth.dev-v1.yml"));
    }
    return crds;
  }

  /** A stand-in for the JobSet project's CRD: its API without its controller. */
  public static CustomResourceDefinition jobSetCrd() {
    return standInCrd(Framework.JOBSET);
  }

  /**
   * The stand-in CRDs of the registry's kinds that a cluster's API server does not serve itself
   * (JobSet's): {@code local/<kind>-crd.yaml}, each kind's API without its controller, so that
   * local mode and the tests can create every kind Berth integrates.
   */
  public static List<CustomResourceDefinition> standInCrds() {
    List<CustomResourceDefinition> crds =
        new ArrayList<>(
            Arrays.stream(Framework.values())
                .filter(f -> f.crd().isPresent())
                .map(EmbeddedApiServer::standInCrd)
                .toList());
    // The runtimes a TrainJob's pod sets come from, which its integration reads.
    crds.add(crd("local/clustertrainingruntime-crd.yaml"));
    crds.add(crd("local/trainingruntime-crd.yaml"));
    return crds;
  }

  private static CustomResourceDefinition standInCrd(Framework framework) {
    return crd("local/" + framework.webhookName() + "-crd.yaml");
  }

  /** Every CRD file of {@code dir} (a controller's, as its build script installs them), by name. */
  public static List<CustomResourceDefinition> crdFiles(Path dir) throws IOException {
    List<CustomResourceDefinition> crds = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path file : files.sorted().toList()) {
        crds.add(Serialization.unmarshal(Files.readString(file), CustomResourceDefinition.class));
      }
    }
    return crds;
  }

  public static CustomResourceDefinition crd(String classpathResource) {
    try (InputStream in =
        EmbeddedApiServer.class.getClassLoader().getResourceAsStream(classpathResource)) {
      if (in == null) {
        throw new IllegalStateException(classpathResource + " is not on the classpath");
      }
      return Serialization.unmarshal(
          new String(in.readAllBytes(), StandardCharsets.UTF_8), CustomResourceDefinition.class);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    client.close();
    server.stop();
    proxy.delete();
  }
}
