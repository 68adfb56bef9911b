package dev.berth.e2e.chart;

import dev.berth.local.EmbeddedApiServer;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A kube-apiserver and etcd of their own for the chart and samples tests, started the same way as
 * {@code dev.berth.e2e.TestApiServer} but not shared with the other suites.
 *
 * <p>Why not the shared server: the chart's webhook configurations point at a Service with no pods,
 * and several fail closed. Cluster-scoped kinds (ClusterQueue, ResourceFlavor, ...) ignore a
 * webhook's namespaceSelector, so once they are stored every later ClusterQueue write on that
 * server fails; neutering them (a selector that matches nothing) would test a different object from
 * the one users install. Here they are applied exactly as rendered, their failure policies are
 * exercised, and they are deleted again. The same isolation keeps the samples' cluster-scoped names
 * (h100, team-llm, ...), the chart's ClusterRoles and the stand-in CRDs for JobSet, ServiceMonitor
 * and cert-manager (which would tell the operator JobSet is installed) away from the other suites.
 *
 * <p>The Berth CRDs are installed from the chart's crds/ folder, the files users install.
 */
final class ChartApiServer {
  private static final String[] STAND_IN_CRDS = {
    "jobsets.jobset.x-k8s.io.yaml",
    "servicemonitors.monitoring.coreos.com.yaml",
    "certificates.cert-manager.io.yaml",
    "issuers.cert-manager.io.yaml"
  };

  private static EmbeddedApiServer server;

  private ChartApiServer() {}

  static synchronized KubernetesClient client() {
    if (server == null) {
      start();
    }
    return server.client();
  }

  private static void start() {
    long started = System.nanoTime();
    System.out.println("[berth-test] starting a separate kube-apiserver for the chart and samples");
    server = EmbeddedApiServer.start();
    System.out.printf(
        "[berth-test] chart kube-apiserver %s ready in %d ms%n",
        server.client().getKubernetesVersion().getGitVersion(),
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
    List<CustomResourceDefinition> crds = new ArrayList<>(chartCrds());
    for (String file : STAND_IN_CRDS) {
      crds.add(Serialization.unmarshal(resource("chart/" + file), CustomResourceDefinition.class));
    }
    // KubeRay's API for the RayJob sample: local mode's stand-in CRDs.
    crds.add(EmbeddedApiServer.crd("local/rayjob-crd.yaml"));
    crds.add(EmbeddedApiServer.crd("local/raycluster-crd.yaml"));
    server.install(crds);
    Runtime.getRuntime().addShutdownHook(new Thread(server::close, "chart-kube-apiserver-stop"));
  }

  /** The CRDs as shipped in helm/berth/crds/. */
  static List<CustomResourceDefinition> chartCrds() {
    Path dir = Repo.root().resolve("helm/berth/crds");
    try (Stream<Path> files = Files.list(dir)) {
      return files
          .filter(p -> p.getFileName().toString().endsWith(".yml"))
          .sorted()
          .map(p -> Serialization.unmarshal(read(p), CustomResourceDefinition.class))
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String resource(String path) {
    try (InputStream in = ChartApiServer.class.getClassLoader().getResourceAsStream(path)) {
      if (in == null) {
        throw new IllegalStateException(path + " is not on the test classpath");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Installs CRDs and waits until they are served. */
  static void installCrds(List<CustomResourceDefinition> crds) {
    server.install(crds);
  }
}
