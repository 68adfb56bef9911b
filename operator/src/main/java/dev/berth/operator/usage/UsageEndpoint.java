package dev.berth.operator.usage;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import dev.berth.api.v1beta1.UsageReport;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code GET /usage?by=namespace|localqueue|clusterqueue|cost-centre&from=&to=&format=csv|json} on
 * the metrics port: the monthly UsageReports summed, read from the API server so that every replica
 * answers the same. {@code from} and {@code to} (exclusive) are months, as 2026-11 or as the RFC
 * 3339 time a month starts at (2026-11-01T00:00:00Z), both optional: reports are monthly, so a time
 * inside a month is refused rather than silently rounded.
 */
public final class UsageEndpoint implements HttpHandler {
  private final KubernetesClient client;

  public UsageEndpoint(KubernetesClient client) {
    this.client = client;
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    if (!"GET".equals(exchange.getRequestMethod())) {
      respond(exchange, 405, "text/plain", "only GET\n");
      return;
    }
    Map<String, String> query = query(exchange.getRequestURI().getRawQuery());
    UsageSummary.By by;
    YearMonth from;
    YearMonth to;
    boolean json;
    try {
      by = UsageSummary.By.parse(query.getOrDefault("by", "namespace"));
      from = month(query, "from");
      to = month(query, "to");
      String format = query.getOrDefault("format", "csv");
      if (!format.equals("csv") && !format.equals("json")) {
        throw new IllegalArgumentException("format: must be csv or json, not \"" + format + "\"");
      }
      json = format.equals("json");
    } catch (IllegalArgumentException e) {
      respond(exchange, 400, "text/plain", e.getMessage() + "\n");
      return;
    }
    List<UsageReport> reports;
    try {
      reports = client.resources(UsageReport.class).inAnyNamespace().list().getItems();
    } catch (KubernetesClientException e) {
      respond(exchange, 503, "text/plain", "cannot list UsageReports: " + e.getMessage() + "\n");
      return;
    }
    List<UsageSummary.Row> rows = UsageSummary.of(reports, by, from, to);
    if (json) {
      respond(exchange, 200, "application/json", UsageSummary.json(by, rows));
    } else {
      respond(exchange, 200, "text/csv", UsageSummary.csv(by, rows));
    }
  }

  /** A month, as 2026-11 or as the instant it starts at (UTC). */
  static YearMonth month(Map<String, String> query, String name) {
    String text = query.get(name);
    if (text == null || text.isEmpty()) {
      return null;
    }
    try {
      return YearMonth.parse(text);
    } catch (DateTimeParseException notMonth) {
      try {
        Instant at = Instant.parse(text);
        YearMonth month = YearMonth.from(at.atOffset(ZoneOffset.UTC));
        if (!month.atDay(1).atStartOfDay().toInstant(ZoneOffset.UTC).equals(at)) {
          throw new IllegalArgumentException(
              name
                  + ": reports are monthly; give a month such"
                  + " as "
                  + month
                  + " or its start "
                  + month
                  + "-01T00:00:00Z, not \""
                  + text
                  + "\"");
        }
        return month;
      } catch (DateTimeParseException e) {
        throw new IllegalArgumentException(
            name
                + ": not a month such as 2026-12 or an RFC 3339"
                + " time such as 2026-12-01T00:00:00Z: \""
                + text
                + "\"");
      }
    }
  }

  private static Map<String, String> query(String raw) {
    Map<String, String> out = new HashMap<>();
    if (raw == null) {
      return out;
    }
    for (String pair : raw.split("&")) {
      int eq = pair.indexOf('=');
      String key = eq < 0 ? pair : pair.substring(0, eq);
      String value = eq < 0 ? "" : pair.substring(eq + 1);
      out.put(
          URLDecoder.decode(key, StandardCharsets.UTF_8),
          URLDecoder.decode(value, StandardCharsets.UTF_8));
    }
    return out;
  }

  private static void respond(HttpExchange exchange, int code, String type, String body)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", type + "; charset=utf-8");
    exchange.sendResponseHeaders(code, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }
}
