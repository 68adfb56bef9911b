package dev.berth.operator.local;

import dev.berth.webhook.WebhookRegistrations;
import dev.berth.webhook.WebhookRuntime;
import dev.berth.webhook.WebhookSettings;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.WebhookClientConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.util.List;

/**
 * Berth's webhooks for an API server on this machine: the production configurations, pointed at
 * https://127.0.0.1:PORT by URL, served with a self-signed CA kept in the operator's namespace.
 */
public final class LoopbackWebhooks {
  private LoopbackWebhooks() {}

  /**
   * Registers and starts the webhooks; {@code operatorUser} is the user the operator's client
   * authenticates as (the only one allowed to unsuspend a managed Job).
   */
  public static WebhookRuntime start(KubernetesClient admin, String operatorUser, int port)
      throws IOException {
    WebhookSettings base = WebhookSettings.fromEnvironment(System.getenv());
    WebhookSettings settings =
        new WebhookSettings(
                port,
                base.threads(),
                base.operatorIdentity(),
                base.namespace(),
                base.serviceName(),
                base.caSecretName(),
                null,
                base.validatingConfigurations(),
                base.mutatingConfigurations(),
                base.caValidity(),
                base.servingValidity(),
                base.rotationCheckPeriod(),
                base.ipAddresses())
            .onLoopback(operatorUser);
    var registrations =
        new WebhookRegistrations(
            path ->
                new WebhookClientConfigBuilder()
                    .withUrl("https://127.0.0.1:" + port + path)
                    .build(),
            List.of("kube-system", settings.namespace()));
    var admission = admin.admissionRegistration().v1();
    admission
        .validatingWebhookConfigurations()
        .resource(registrations.validating())
        .serverSideApply();
    admission.mutatingWebhookConfigurations().resource(registrations.mutating()).serverSideApply();
    WebhookRuntime webhooks = new WebhookRuntime(settings, admin);
    webhooks.start();
    return webhooks;
  }
}
