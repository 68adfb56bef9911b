package dev.berth.bench.load;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Berth's webhooks as the chart installs them with its default values, for an operator in a JVM of
 * its own on this machine ({@link OperatorJvm}): the chart's webhook configurations registered on
 * the API server, and the environment under which the operator serves them as the chart's
 * Deployment does (self-signed certificates, the CA written into the configurations by the
 * operator, the visibility API's HTTPS port beside them).
 *
 * <p>Two things differ from a cluster, because there is no Service network here: each webhook's
 * {@code clientConfig} names {@code https://localhost:PORT} instead of the chart's Service (the
 * same path), and the operator is told the Service is called {@code localhost}, so that its
 * self-signed serving certificate is valid for that name. The operator's identity, which the
 * webhooks let write a Workload's admission, is the user of the API server's admin certificate, as
 * in local mode: the operator runs with it, and so does the benchmark's runner, which clears the
 * admission of an evicted Workload as the operator's Job integration would.
 */
final class ChartWebhooks {
  /** The release namespace: the chart excludes it from every webhook. */
  static final String NAMESPACE = "berth-system";

  /** The chart's fullname at release name "berth": its Service and its Secret's prefix. */
  private static final String RELEASE = "berth";

  /** The user of kube-api-test's admin certificate (as LocalCluster and the e2e suite say). */
  static final String OPERATOR_USER = "kubeapitest";

  private ChartWebhooks() {}

  /**
   * The chart's ValidatingWebhookConfiguration and MutatingWebhookConfiguration at its default
   * values, rendered by {@code helm template} ({@link dev.berth.webhook.ChartWebhooks}), each
   * webhook pointed at {@code https://localhost:webhookPort} with the chart's path and no CA yet
   * (the operator writes its own in).
   */
  static List<HasMetadata> chartConfigurations(int webhookPort) {
    dev.berth.webhook.ChartWebhooks chart =
        dev.berth.webhook.ChartWebhooks.render(NAMESPACE)
            .pointedAt("https://localhost:" + webhookPort);
    return List.of(chart.validating(), chart.mutating());
  }

  /**
   * Registers {@link #chartConfigurations(int)} pointed at {@code https://localhost:webhookPort},
   * and returns the operator's environment that serves them: the chart Deployment's webhook
   * settings with that port, and the visibility API's HTTPS port on one the system picks (nothing
   * here calls it; served, as in the chart).
   */
  static Map<String, String> register(KubernetesClient admin, int webhookPort) {
    String validating = null;
    String mutating = null;
    for (HasMetadata configuration : chartConfigurations(webhookPort)) {
      if (configuration instanceof ValidatingWebhookConfiguration v) {
        validating = v.getMetadata().getName();
      } else if (configuration instanceof MutatingWebhookConfiguration m) {
        mutating = m.getMetadata().getName();
      } else {
        throw new IllegalStateException("not a webhook configuration: " + configuration.getKind());
      }
      admin.resource(configuration).create();
    }
    if (validating == null || mutating == null) {
      throw new IllegalStateException("the chart's webhooks lack a validating or mutating set");
    }
    Map<String, String> env = new LinkedHashMap<>();
    env.put("BERTH_WEBHOOKS_ENABLED", "true");
    env.put("BERTH_WEBHOOK_PORT", Integer.toString(webhookPort));
    env.put("BERTH_HTTPS_PORT", "0");
    env.put("BERTH_CERT_MODE", "self-signed");
    env.put("BERTH_WEBHOOK_SERVICE", "localhost");
    env.put("BERTH_WEBHOOK_CA_SECRET", RELEASE + "-webhook-ca");
    env.put("BERTH_VALIDATING_WEBHOOK", validating);
    env.put("BERTH_MUTATING_WEBHOOK", mutating);
    env.put("BERTH_OPERATOR_IDENTITY", OPERATOR_USER);
    return env;
  }
}
