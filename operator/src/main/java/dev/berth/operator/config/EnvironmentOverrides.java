package dev.berth.operator.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The environment variables Berth reads, each the override of one configuration field: a variable
 * that is set (and not blank) wins over the file. They are written into the document before it is
 * read, so a value from the environment is checked exactly as the file's is, and a wrong one is
 * refused with its path and the variable's name.
 */
final class EnvironmentOverrides {
  /** How a variable's text becomes the field's value. */
  enum Form {
    /** The text itself (strings, numbers, true/false). */
    TEXT,
    /** Whole seconds, for a field that is a duration. */
    SECONDS,
    /** A comma list. */
    LIST,
    /** {@code self-signed} or {@code cert-manager}, for internalCertManagement.enable. */
    CERT_MODE
  }

  /** One variable and the field it overrides. */
  record Override(String variable, String path, Form form) {}

  static final String PREFIX = "BERTH_WAIT_FOR_PODS_READY_";

  static final List<Override> ALL =
      List.of(
          new Override("BERTH_NAMESPACE", "namespace", Form.TEXT),
          new Override("BERTH_LEADER_ELECTION", "leaderElection.leaderElect", Form.TEXT),
          new Override("BERTH_LEASE_NAME", "leaderElection.resourceName", Form.TEXT),
          new Override("BERTH_EXIT_ON_LOST_LEASE", "leaderElection.exitOnLostLease", Form.TEXT),
          new Override("BERTH_METRICS_PORT", "metrics.port", Form.TEXT),
          new Override("BERTH_WEBHOOKS_ENABLED", "webhook.enable", Form.TEXT),
          new Override("BERTH_WEBHOOK_PORT", "webhook.port", Form.TEXT),
          new Override("BERTH_WEBHOOK_THREADS", "webhook.threads", Form.TEXT),
          new Override("BERTH_CERT_DIR", "webhook.certDir", Form.TEXT),
          new Override("BERTH_OPERATOR_IDENTITY", "webhook.operatorIdentity", Form.TEXT),
          new Override("BERTH_CERT_MODE", "internalCertManagement.enable", Form.CERT_MODE),
          new Override(
              "BERTH_WEBHOOK_SERVICE", "internalCertManagement.webhookServiceName", Form.TEXT),
          new Override(
              "BERTH_WEBHOOK_CA_SECRET", "internalCertManagement.webhookSecretName", Form.TEXT),
          new Override(
              "BERTH_VALIDATING_WEBHOOK",
              "internalCertManagement.validatingWebhookConfigurationName",
              Form.TEXT),
          new Override(
              "BERTH_MUTATING_WEBHOOK",
              "internalCertManagement.mutatingWebhookConfigurationName",
              Form.TEXT),
          new Override("BERTH_WRITE_QPS", "clientConnection.qps", Form.TEXT),
          new Override("BERTH_WRITE_BURST", "clientConnection.burst", Form.TEXT),
          new Override("BERTH_WRITERS", "clientConnection.writers", Form.TEXT),
          new Override("BERTH_WRITE_QUEUE", "clientConnection.queue", Form.TEXT),
          new Override("BERTH_PENDING_WRITE_QPS", "clientConnection.pendingWorkloadQps", Form.TEXT),
          new Override(
              "BERTH_QUEUE_STATUS_WRITE_QPS", "clientConnection.queueStatusQps", Form.TEXT),
          new Override(
              "BERTH_WATCH_SILENCE_SECONDS", "clientConnection.watchSilence", Form.SECONDS),
          new Override("BERTH_NATIVE_TLS", "clientConnection.nativeTls", Form.TEXT),
          new Override(PREFIX + "ENABLE", "waitForPodsReady.enable", Form.TEXT),
          new Override(PREFIX + "TIMEOUT_SECONDS", "waitForPodsReady.timeout", Form.SECONDS),
          new Override(PREFIX + "BLOCK_ADMISSION", "waitForPodsReady.blockAdmission", Form.TEXT),
          new Override(
              PREFIX + "RECOVERY_TIMEOUT_SECONDS",
              "waitForPodsReady.recoveryTimeout",
              Form.SECONDS),
          new Override(
              PREFIX + "REQUEUING_TIMESTAMP",
              "waitForPodsReady.requeuingStrategy.timestamp",
              Form.TEXT),
          new Override(
              PREFIX + "BACKOFF_BASE_SECONDS",
              "waitForPodsReady.requeuingStrategy.backoffBaseSeconds",
              Form.TEXT),
          new Override(
              PREFIX + "BACKOFF_MAX_SECONDS",
              "waitForPodsReady.requeuingStrategy.backoffMaxSeconds",
              Form.TEXT),
          new Override(
              PREFIX + "BACKOFF_LIMIT_COUNT",
              "waitForPodsReady.requeuingStrategy.backoffLimitCount",
              Form.TEXT),
          new Override("BERTH_FAIR_SHARING", "fairSharing.enable", Form.TEXT),
          new Override("BERTH_USAGE_REPORT_INTERVAL_SECONDS", "usage.reportInterval", Form.SECONDS),
          new Override(
              "BERTH_CAPACITY_EXCLUDED_TAINT_KEYS", "capacity.excludedTaintKeys", Form.LIST),
          new Override("BERTH_PROMETHEUS_URL", "utilization.prometheusUrl", Form.TEXT),
          new Override("BERTH_UTILIZATION_METRIC", "utilization.metric", Form.TEXT),
          new Override(
              "BERTH_UTILIZATION_NAMESPACE_LABEL", "utilization.namespaceLabel", Form.TEXT),
          new Override("BERTH_UTILIZATION_POD_LABEL", "utilization.podLabel", Form.TEXT),
          new Override("BERTH_UTILIZATION_DELAY_SECONDS", "utilization.delay", Form.SECONDS),
          new Override("BERTH_UTILIZATION_GIVE_UP_SECONDS", "utilization.giveUp", Form.SECONDS),
          new Override("BERTH_HTTPS_PORT", "visibility.port", Form.TEXT),
          new Override("BERTH_DASHBOARD_ENABLED", "visibility.dashboard", Form.TEXT));

  private EnvironmentOverrides() {}

  /**
   * Writes every set variable into {@code document} at its field's path, noting in {@code sources}
   * which variable each path came from; a value that cannot be the field's (not seconds, not a
   * certificate mode) is refused in {@code errors} and not written.
   */
  static void apply(
      ObjectNode document,
      Map<String, String> env,
      List<String> errors,
      Map<String, String> sources) {
    for (Override o : ALL) {
      String text = env.get(o.variable());
      if (text == null || text.isBlank()) {
        continue;
      }
      JsonNode value = value(o, text.trim());
      if (value == null) {
        errors.add(
            o.path() + " (" + o.variable() + "): " + expected(o.form()) + ", got \"" + text + "\"");
        continue;
      }
      ObjectNode parent = parentOf(document, o.path());
      if (parent != null) {
        parent.set(o.path().substring(o.path().lastIndexOf('.') + 1), value);
        sources.put(o.path(), o.variable());
      }
    }
  }

  private static JsonNode value(Override o, String text) {
    return switch (o.form()) {
      case TEXT -> TextNode.valueOf(text);
      case SECONDS ->
          text.matches("\\d{1,12}") ? TextNode.valueOf(Long.parseLong(text) + "s") : null;
      case LIST -> {
        ArrayNode list = JsonNodeFactory.instance.arrayNode();
        Arrays.stream(text.split(","))
            .map(String::trim)
            .filter(k -> !k.isEmpty())
            .forEach(list::add);
        yield list;
      }
      case CERT_MODE ->
          switch (text) {
            case "self-signed" -> BooleanNode.TRUE;
            case "cert-manager" -> BooleanNode.FALSE;
            default -> null;
          };
    };
  }

  private static String expected(Form form) {
    return form == Form.CERT_MODE
        ? "must be self-signed or cert-manager"
        : "must be a whole number of seconds, 0 or more";
  }

  /**
   * The mapping that holds the field at {@code path}, made where missing; null if not a mapping.
   */
  private static ObjectNode parentOf(ObjectNode document, String path) {
    ObjectNode node = document;
    String[] names = path.split("\\.");
    for (int i = 0; i < names.length - 1; i++) {
      JsonNode child = node.get(names[i]);
      if (child == null || child.isNull()) {
        node = node.putObject(names[i]);
      } else if (child.isObject()) {
        node = (ObjectNode) child;
      } else {
        return null; // the file's own mistake, reported when the section is read
      }
    }
    return node;
  }
}
