package dev.berth.local;

import dev.berth.operator.config.Configuration;
import dev.berth.operator.config.ConfigurationLoader;
import dev.berth.webhook.ChartWebhooks;
import dev.berth.webhook.HelmChart;
import dev.berth.webhook.WebhookRuntime;
import dev.berth.webhook.WebhookSettings;
import dev.berth.webhook.dra.DeviceClassMappings;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Berth's webhooks for an API server on this machine: the chart's configurations with its default
 * values (rendered by helm from the checkout, {@link ChartWebhooks}), pointed at
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
    return start(admin, operatorUser, port, new String[0]);
  }

  /**
   * As above, with the chart rendered with these values ({@code helm --set}), e.g. {@code
   * integrations.frameworks={batch/job}}: only the kinds the operator runs are intercepted.
   */
  public static WebhookRuntime start(
      KubernetesClient admin, String operatorUser, int port, String... chartValues)
      throws IOException {
    return start(admin, operatorUser, port, DeviceClassMappings.NONE, chartValues);
  }

  /** As above, with the operator's DeviceClass mappings, which the pod rule charges. */
  public static WebhookRuntime start(
      KubernetesClient admin,
      String operatorUser,
      int port,
      DeviceClassMappings deviceClasses,
      String... chartValues)
      throws IOException {
    WebhookSettings base = WebhookSettings.fromEnvironment(System.getenv());
    ChartWebhooks chart = ChartWebhooks.render(base.namespace(), chartValues).onLoopback(port);
    WebhookSettings settings =
        new WebhookSettings(
                port,
                base.threads(),
                base.operatorIdentity(),
                base.namespace(),
                base.serviceName(),
                base.caSecretName(),
                null,
                // The CA bundle goes into the configurations just installed, whatever the
                // environment names for the chart's.
                List.of(chart.validating().getMetadata().getName()),
                List.of(chart.mutating().getMetadata().getName()),
                base.caValidity(),
                base.servingValidity(),
                base.rotationCheckPeriod(),
                base.ipAddresses(),
                chartConfiguration(base.namespace(), chartValues)
                    .webhook()
                    .manageJobsWithoutQueueName())
            .onLoopback(operatorUser);
    chart.install(admin);
    WebhookRuntime webhooks = new WebhookRuntime(settings, admin).deviceClasses(deviceClasses);
    webhooks.start();
    return webhooks;
  }

  /**
   * The operator's configuration as the chart renders it with these values: the webhooks' own
   * settings in it (the queue rule's scope) come from the same values as their registrations.
   */
  static Configuration chartConfiguration(String namespace, String... chartValues) {
    List<String> args = new ArrayList<>(List.of("--show-only", "templates/configmap.yaml"));
    for (String value : chartValues) {
      args.add("--set");
      args.add(value);
    }
    ConfigMap config =
        Serialization.unmarshal(
            HelmChart.locate().template(ChartWebhooks.RELEASE, namespace, args), ConfigMap.class);
    return ConfigurationLoader.load(config.getData().get("config.yaml"), Map.of());
  }
}
