package dev.berth.e2e;

import dev.berth.local.EmbeddedApiServer;
import dev.berth.local.LoopbackWebhooks;
import dev.berth.operator.BerthOperator;
import dev.berth.operator.OperatorConfig;
import dev.berth.operator.config.Configuration;
import dev.berth.webhook.WebhookRuntime;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/**
 * A real API server of its own with Berth's CRDs (and the stand-in CRDs of the registry's kinds),
 * the chart's webhooks rendered with the given values and served on loopback, an operator with the
 * given configuration, and a team member's client: for a test of what one chart value changes. The
 * member impersonates a user of group {@code system:masters}: any rights without a binding to make,
 * but not the operator's, so only the webhooks stand in its way.
 */
final class LoopbackBerth implements AutoCloseable {
  final EmbeddedApiServer server;
  final KubernetesClient admin;
  final KubernetesClient member;
  private final WebhookRuntime webhooks;
  private final KubernetesClient operatorClient;
  private final BerthOperator operator;

  private LoopbackBerth(Configuration config, String namespace, String... chartValues)
      throws IOException {
    server = EmbeddedApiServer.start();
    try {
      List<io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition> crds =
          new ArrayList<>(EmbeddedApiServer.berthCrds());
      crds.addAll(EmbeddedApiServer.standInCrds());
      server.install(crds);
      admin = server.client();
      Namespaces.ensure(admin, "berth-system");
      Namespaces.ensure(admin, namespace);
      webhooks = LoopbackWebhooks.start(admin, "kubeapitest", freePort(), chartValues);
      operatorClient =
          new KubernetesClientBuilder()
              .withConfig(Config.fromKubeconfig(server.kubeconfig()))
              .build();
      operator = BerthOperator.start(operatorClient, config, () -> {});
      Config memberConfig = Config.fromKubeconfig(server.kubeconfig());
      memberConfig.setImpersonateUsername("member");
      memberConfig.setImpersonateGroups("system:masters");
      member = new KubernetesClientBuilder().withConfig(memberConfig).build();
    } catch (IOException | RuntimeException e) {
      server.close();
      throw e;
    }
  }

  /** With the chart rendered with {@code chartValues} and {@code namespace} created. */
  static LoopbackBerth start(Configuration config, String namespace, String... chartValues)
      throws IOException {
    return new LoopbackBerth(config, namespace, chartValues);
  }

  /** The operator's configuration from an empty environment. */
  static Configuration defaultConfiguration() {
    return new OperatorConfig(
            "berth-system", false, "berth-leader", 0, false, 0, "berth-operator", false, false)
        .configuration();
  }

  @Override
  public void close() {
    member.close();
    operator.close();
    operatorClient.close();
    webhooks.close();
    server.close();
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
