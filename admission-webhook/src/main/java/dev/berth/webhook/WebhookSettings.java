package dev.berth.webhook;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * How the webhook runs, read from the environment the Helm chart sets. Defaults fit the chart's
 * names; {@code certDirectory} set means cert-manager mode.
 */
public record WebhookSettings(
    int port,
    int threads,
    String operatorIdentity,
    String namespace,
    String serviceName,
    String caSecretName,
    Path certDirectory,
    List<String> validatingConfigurations,
    List<String> mutatingConfigurations,
    Duration caValidity,
    Duration servingValidity,
    Duration rotationCheckPeriod) {

  public static WebhookSettings fromEnvironment(Map<String, String> env) {
    String namespace = env.getOrDefault("POD_NAMESPACE", "berth-system");
    String certDir = env.get("BERTH_WEBHOOK_CERT_DIR");
    return new WebhookSettings(
        Integer.parseInt(env.getOrDefault("BERTH_WEBHOOK_PORT", "9443")),
        Integer.parseInt(env.getOrDefault("BERTH_WEBHOOK_THREADS", "16")),
        env.getOrDefault("BERTH_OPERATOR_IDENTITY",
            "system:serviceaccount:" + namespace + ":berth"),
        namespace,
        env.getOrDefault("BERTH_WEBHOOK_SERVICE", "berth-webhook"),
        env.getOrDefault("BERTH_WEBHOOK_CA_SECRET", "berth-webhook-ca"),
        certDir == null || certDir.isBlank() ? null : Path.of(certDir),
        List.of(env.getOrDefault("BERTH_VALIDATING_WEBHOOK_CONFIGURATION", "berth-validating")),
        List.of(env.getOrDefault("BERTH_MUTATING_WEBHOOK_CONFIGURATION", "berth-mutating")),
        Duration.ofDays(3650),
        Duration.ofDays(365),
        Duration.ofHours(1));
  }

  /** The names the API server may use for the Service: short, namespaced and fully qualified. */
  public List<String> serviceDnsNames() {
    return List.of(
        serviceName,
        serviceName + "." + namespace,
        serviceName + "." + namespace + ".svc",
        serviceName + "." + namespace + ".svc.cluster.local");
  }
}
