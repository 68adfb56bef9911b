package dev.berth.e2e;

import dev.berth.local.EmbeddedApiServer;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One real kube-apiserver and etcd for the whole test JVM, with Berth's CRDs and a stand-in JobSet
 * CRD installed. Starting the pair takes seconds, so test classes share it and keep apart by
 * namespace and name; tests that must not share take a {@link #dedicated()} one.
 */
public final class TestApiServer {
  private static Cluster shared;

  private TestApiServer() {}

  /**
   * A running API server with the CRDs, and an admin client for it; no Job controller, but (unless
   * one runs beside it) its acknowledgment of an evicted Job's suspension ({@link
   * SuspensionAcknowledger}, else null).
   */
  public record Cluster(EmbeddedApiServer server, SuspensionAcknowledger acknowledger)
      implements AutoCloseable {
    public KubernetesClient client() {
      return server.client();
    }

    public String kubeconfig() {
      return server.kubeconfig();
    }

    @Override
    public void close() {
      if (acknowledger != null) {
        acknowledger.close();
      }
      server.close();
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

  /** A server of one's own, for tests that must not share (leader election, schema tests). */
  public static Cluster dedicated() {
    return launch(true);
  }

  /**
   * A server of one's own for a control plane whose kube-controller-manager runs the real Job
   * controller: no stand-in acknowledges suspensions there (it would answer for the controller).
   */
  public static Cluster dedicatedForControllers() {
    return launch(false);
  }

  private static Cluster launch() {
    return launch(true);
  }

  private static Cluster launch(boolean acknowledgeSuspensions) {
    long started = System.nanoTime();
    System.out.println("[berth-test] starting kube-apiserver and etcd (fabric8 kube-api-test)");
    EmbeddedApiServer server = EmbeddedApiServer.start();
    System.out.printf(
        "[berth-test] kube-apiserver %s ready in %d ms%n",
        server.client().getKubernetesVersion().getGitVersion(),
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
    List<CustomResourceDefinition> crds = new ArrayList<>(berthCrds());
    crds.add(EmbeddedApiServer.jobSetCrd());
    server.install(crds);
    return new Cluster(
        server, acknowledgeSuspensions ? SuspensionAcknowledger.start(server.client()) : null);
  }

  /** The generated CRDs, as packaged in the berth-api jar. */
  public static List<CustomResourceDefinition> berthCrds() {
    return EmbeddedApiServer.berthCrds();
  }

  static boolean established(CustomResourceDefinition crd) {
    return EmbeddedApiServer.established(crd);
  }
}
