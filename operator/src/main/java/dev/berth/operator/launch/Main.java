package dev.berth.operator.launch;

import dev.berth.operator.BerthOperator;
import dev.berth.operator.Clients;
import dev.berth.operator.ClusterCredentials;
import dev.berth.operator.config.Configuration;
import dev.berth.operator.config.ConfigurationException;
import dev.berth.operator.config.ConfigurationLoader;
import dev.berth.operator.config.ProcessEnvironment;
import dev.berth.operator.local.LocalMode;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;

/**
 * The jar's entry point (`java -jar berth-operator.jar`, the image and `./berth`): the operator
 * against the cluster of the usual kubeconfig or in-cluster configuration, or, with none (or with
 * {@code --local}), local mode on a control plane of its own. It lives apart from both so that the
 * operator does not depend on local mode, which depends on the operator.
 */
public final class Main {
  private Main() {}

  public static void main(String[] args) throws Exception {
    if (Arrays.asList(args).contains("--local") || !ProcessEnvironment.clusterConfigured()) {
      LocalMode.run(args);
      return;
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
    // A new integration's CRD appearing after start: exit, and the kubelet starts us with it.
    BerthOperator berth = BerthOperator.start(client, config, () -> System.exit(0));
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
