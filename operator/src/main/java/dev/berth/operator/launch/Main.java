package dev.berth.operator.launch;

import dev.berth.operator.BerthOperator;
import dev.berth.operator.Clients;
import dev.berth.operator.OperatorConfig;
import dev.berth.operator.kube.ClusterCredentials;
import dev.berth.operator.local.LocalMode;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
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
    if (Arrays.asList(args).contains("--local") || !clusterConfigured()) {
      LocalMode.run(args);
      return;
    }
    OperatorConfig config = OperatorConfig.fromEnvironment();
    KubernetesClient client = Clients.builder().withConfig(ClusterCredentials.load()).build();
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

  private static boolean clusterConfigured() {
    if (System.getenv("KUBERNETES_SERVICE_HOST") != null) {
      return true;
    }
    String kubeconfig = System.getenv("KUBECONFIG");
    Path path =
        kubeconfig != null && !kubeconfig.isBlank()
            ? Path.of(kubeconfig.split(File.pathSeparator)[0])
            : Path.of(System.getProperty("user.home"), ".kube", "config");
    return Files.exists(path);
  }
}
