package dev.berth.e2e;

import static org.awaitility.Awaitility.await;

import dev.berth.api.v1beta1.Berth;
import dev.berth.local.LoopbackWebhooks;
import dev.berth.webhook.WebhookRuntime;
import dev.berth.webhook.dra.DeviceClassMappings;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;

/** Berth's webhooks served from the test JVM and registered on a dedicated API server. */
final class ServedWebhooks {
  private ServedWebhooks() {}

  /** On a free port; kube-api-test's admin user stands for the operator's identity. */
  static WebhookRuntime start(KubernetesClient admin) throws Exception {
    return start(admin, DeviceClassMappings.NONE);
  }

  /** As above, the chart rendered with these values, e.g. {@code integrations.frameworks={...}}. */
  static WebhookRuntime start(KubernetesClient admin, String... chartValues) throws Exception {
    return start(admin, DeviceClassMappings.NONE, chartValues);
  }

  /** As above, with the operator's DeviceClass mappings, which the pod rule charges. */
  static WebhookRuntime start(
      KubernetesClient admin, DeviceClassMappings deviceClasses, String... chartValues)
      throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    } catch (IOException e) {
      throw new IllegalStateException("no free port for the webhooks", e);
    }
    return LoopbackWebhooks.start(admin, "kubeapitest", port, deviceClasses, chartValues);
  }

  /**
   * Waits until the API server calls the pod webhook, which takes a moment after registration: a
   * pod of a podSet in {@code namespace} is stored behind Berth's topology scheduling gate.
   */
  static void awaitPodGating(KubernetesClient admin, String namespace) {
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(
            () -> {
              Pod probe =
                  new PodBuilder()
                      .withNewMetadata()
                      .withNamespace(namespace)
                      .withName("probe")
                      .addToLabels(Berth.PODSET_LABEL, "main")
                      .endMetadata()
                      .withNewSpec()
                      .addNewContainer()
                      .withName("c")
                      .withImage("busybox")
                      .endContainer()
                      .endSpec()
                      .build();
              Pod stored = admin.resource(probe).dryRun().create();
              return stored.getSpec().getSchedulingGates().stream()
                  .anyMatch(g -> Berth.TOPOLOGY_SCHEDULING_GATE.equals(g.getName()));
            });
  }
}
