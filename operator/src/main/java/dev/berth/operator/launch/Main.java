package dev.berth.operator.launch;

import dev.berth.operator.BerthOperator;
import dev.berth.operator.Clients;
import dev.berth.operator.config.Configuration;
import dev.berth.operator.config.ConfigurationException;
import dev.berth.operator.config.ConfigurationLoader;
import dev.berth.operator.config.ProcessEnvironment;
import dev.berth.operator.kube.ClusterCredentials;
import dev.berth.operator.logging.LogFormat;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;

/**
 * The operator jar's entry point (`java -jar berth-operator.jar`, the image, and `./berth` when
 * there is a cluster): the operator against the cluster of the usual kubeconfig or in-cluster
 * configuration. Local mode is no part of this jar (the local module's {@code
 * dev.berth.local.LocalMode}, which `./berth` starts when there is no cluster), so without a
 * cluster, or with {@code --local}, this says where local mode is and exits.
 */
public final class Main {
  /** The exit status of a start refused before anything ran (no cluster, a bad setting). */
  static final int USAGE = 2;

  private Main() {}

  public static void main(String[] args) throws Exception {
    // Before anything logs: SLF4J binds its provider at the first logger.
    try {
      LogFormat.from(ProcessEnvironment.logSettings()).install();
    } catch (IllegalArgumentException e) {
      System.err.println("berth: " + e.getMessage());
      System.exit(USAGE);
    }
    if (Arrays.asList(args).contains("--local") || !ProcessEnvironment.clusterConfigured()) {
      System.err.println(
          "berth: no cluster (no KUBECONFIG, ~/.kube/config or in-cluster service account)"
              + (Arrays.asList(args).contains("--local") ? " or --local" : "")
              + ": local mode is not part of the operator's jar; run ./berth --local (or java"
              + " -jar local/target/berth-local.jar)");
      System.exit(USAGE);
    }
    Configuration config;
    try {
      config = ConfigurationLoader.fromProcess(args);
    } catch (ConfigurationException e) {
      // Nothing started yet: a refused configuration is the whole story of this run.
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    KubernetesClient client =
        Clients.builder(
                config.clientConnection().watchSilence(), config.clientConnection().nativeTls())
            .withConfig(ClusterCredentials.load())
            .build();
    // A kind whose CRD is installed after start switches on in this process (LateIntegrations).
    BerthOperator berth = BerthOperator.start(client, config, () -> {});
    if (berth.httpsPort() < 0) {
      // Said here, not by BerthOperator: local mode and tests serve HTTPS with keys of their own.
      org.slf4j.LoggerFactory.getLogger(Main.class)
          .info(
              "webhooks off: no visibility API and no dashboard (both are served over HTTPS"
                  + " with the webhooks' serving certificate)");
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  berth.close();
                  client.close();
                  stopped.countDown();
                },
                "berth-shutdown"));
    stopped.await();
  }
}
