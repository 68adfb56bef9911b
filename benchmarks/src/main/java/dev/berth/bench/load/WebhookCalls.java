package dev.berth.bench.load;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The API server's own count of its calls to admission webhooks, per webhook: calls and their time
 * ({@code apiserver_admission_webhook_admission_duration_seconds}), requests the webhook refused,
 * and calls that failed (no answer in time, TLS, connection: {@code
 * apiserver_admission_webhook_rejection_count} with an error type other than {@code no_error}). A
 * snapshot before and one after a run say that the webhooks were on the run's path, and what they
 * added to each request's latency, as the API server saw it.
 */
final class WebhookCalls {
  private static final Pattern DURATION =
      Pattern.compile(
          "^apiserver_admission_webhook_admission_duration_seconds_(count|sum)\\{(.*)} (\\S+)$");
  private static final Pattern REJECTION =
      Pattern.compile("^apiserver_admission_webhook_rejection_count\\{(.*)} (\\S+)$");
  private static final Pattern LABEL = Pattern.compile("(\\w+)=\"([^\"]*)\"");

  /** Per webhook name: calls, seconds, refused, failed. */
  private final Map<String, double[]> byName;

  private WebhookCalls(Map<String, double[]> byName) {
    this.byName = byName;
  }

  static WebhookCalls scrape(KubernetesClient admin) {
    Map<String, double[]> byName = new TreeMap<>();
    for (String line : admin.raw("/metrics").split("\n")) {
      Matcher d = DURATION.matcher(line);
      if (d.matches()) {
        Map<String, String> labels = labels(d.group(2));
        double[] row = byName.computeIfAbsent(labels.get("name"), k -> new double[4]);
        double value = Double.parseDouble(d.group(3));
        if (d.group(1).equals("count")) {
          row[0] += value;
          if ("true".equals(labels.get("rejected"))) {
            row[2] += value;
          }
        } else {
          row[1] += value;
        }
        continue;
      }
      Matcher r = REJECTION.matcher(line);
      if (r.matches()) {
        Map<String, String> labels = labels(r.group(1));
        if (!"no_error".equals(labels.get("error_type"))) {
          byName.computeIfAbsent(labels.get("name"), k -> new double[4])[3] +=
              Double.parseDouble(r.group(2));
        }
      }
    }
    return new WebhookCalls(byName);
  }

  private static Map<String, String> labels(String text) {
    Map<String, String> labels = new TreeMap<>();
    Matcher l = LABEL.matcher(text);
    while (l.find()) {
      labels.put(l.group(1), l.group(2));
    }
    return labels;
  }

  /** Calls since {@code before}, over every webhook. */
  long callsSince(WebhookCalls before) {
    return Math.round(
        byName.entrySet().stream()
            .mapToDouble(e -> e.getValue()[0] - before.row(e.getKey())[0])
            .sum());
  }

  private double[] row(String name) {
    return byName.getOrDefault(name, new double[4]);
  }

  /** One line per webhook called since {@code before}: calls, mean ms, refused, failed. */
  String since(WebhookCalls before) {
    StringBuilder out = new StringBuilder();
    byName.forEach(
        (name, now) -> {
          double[] then = before.row(name);
          double calls = now[0] - then[0];
          double failed = now[3] - then[3];
          if (calls <= 0 && failed <= 0) {
            return;
          }
          out.append(
              String.format(
                  Locale.ROOT,
                  "  %-32s %8.0f calls, %6.1f ms mean, %5.0f refused, %5.0f failed%n",
                  name,
                  calls,
                  calls > 0 ? 1000 * (now[1] - then[1]) / calls : Double.NaN,
                  now[2] - then[2],
                  failed));
        });
    return out.length() == 0 ? "  none\n" : out.toString();
  }
}
