package dev.berth.webhook;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.util.concurrent.CountDownLatch;

/** Runs the webhooks alone, for clusters that split them from the operator's process. */
public final class WebhookMain {
  private WebhookMain() {}

  public static void main(String[] args) throws Exception {
    WebhookSettings settings = WebhookSettings.fromEnvironment(System.getenv());
    KubernetesClient client = new KubernetesClientBuilder().build();
    WebhookRuntime runtime = new WebhookRuntime(settings, client);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  runtime.close();
                  client.close();
                  stopped.countDown();
                },
                "berth-webhook-shutdown"));
    runtime.start();
    stopped.await();
  }
}
