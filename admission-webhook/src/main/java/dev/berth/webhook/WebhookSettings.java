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
    Duration rotationCheckPeriod,
    List<String> ipAddresses,
    boolean manageJobsWithoutQueueName) {

  /** The self-signed CA's lifetime. */
  public static final Duration CA_VALIDITY = Duration.ofDays(3650);

  /** The serving certificate's lifetime. */
  public static final Duration SERVING_VALIDITY = Duration.ofDays(365);

  /** How often the serving certificate's expiry is checked. */
  public static final Duration ROTATION_CHECK_PERIOD = Duration.ofHours(1);

  /**
   * For the webhooks run alone ({@link WebhookMain}); the operator's process reads the same names
   * as overrides of its configuration file instead. The variables: BERTH_NAMESPACE,
   * BERTH_WEBHOOK_PORT, BERTH_CERT_MODE (self-signed or cert-manager) with BERTH_CERT_DIR,
   * BERTH_WEBHOOK_SERVICE, BERTH_VALIDATING_WEBHOOK, BERTH_MUTATING_WEBHOOK,
   * BERTH_OPERATOR_IDENTITY.
   */
  public static WebhookSettings fromEnvironment(Map<String, String> env) {
    String namespace = env.getOrDefault("BERTH_NAMESPACE", "berth-system");
    boolean certManager = "cert-manager".equals(env.getOrDefault("BERTH_CERT_MODE", "self-signed"));
    String certDir = env.getOrDefault("BERTH_CERT_DIR", "/tmp/berth-certs");
    return new WebhookSettings(
        Integer.parseInt(env.getOrDefault("BERTH_WEBHOOK_PORT", "9443")),
        Integer.parseInt(env.getOrDefault("BERTH_WEBHOOK_THREADS", "16")),
        env.getOrDefault(
            "BERTH_OPERATOR_IDENTITY", "system:serviceaccount:" + namespace + ":berth"),
        namespace,
        env.getOrDefault("BERTH_WEBHOOK_SERVICE", "berth-webhook"),
        env.getOrDefault("BERTH_WEBHOOK_CA_SECRET", "berth-webhook-ca"),
        certManager ? Path.of(certDir) : null,
        List.of(env.getOrDefault("BERTH_VALIDATING_WEBHOOK", ChartWebhooks.VALIDATING_NAME)),
        List.of(env.getOrDefault("BERTH_MUTATING_WEBHOOK", ChartWebhooks.MUTATING_NAME)),
        CA_VALIDITY,
        SERVING_VALIDITY,
        ROTATION_CHECK_PERIOD,
        List.of(),
        !"false".equals(env.get("BERTH_MANAGE_JOBS_WITHOUT_QUEUE_NAME")));
  }

  /**
   * The same settings for an API server on this machine (local mode): served on 127.0.0.1 with a
   * certificate for that address, and the given user as the operator.
   */
  public WebhookSettings onLoopback(String operatorUser) {
    return new WebhookSettings(
        port,
        threads,
        operatorUser,
        namespace,
        serviceName,
        caSecretName,
        null,
        validatingConfigurations,
        mutatingConfigurations,
        caValidity,
        servingValidity,
        rotationCheckPeriod,
        List.of("127.0.0.1"),
        manageJobsWithoutQueueName);
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
