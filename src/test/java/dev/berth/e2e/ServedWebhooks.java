package dev.berth.e2e;

import dev.berth.operator.local.LoopbackWebhooks;
import dev.berth.webhook.WebhookRuntime;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.net.ServerSocket;

/** Berth's webhooks served from the test JVM and registered on a dedicated API server. */
final class ServedWebhooks {
  private ServedWebhooks() {}

  /** On a free port; kube-api-test's admin user stands for the operator's identity. */
  static WebhookRuntime start(KubernetesClient admin) throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    } catch (IOException e) {
      throw new IllegalStateException("no free port for the webhooks", e);
    }
    return LoopbackWebhooks.start(admin, "kubeapitest", port);
  }
}
