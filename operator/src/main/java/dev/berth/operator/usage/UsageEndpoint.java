package dev.berth.operator.usage;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import dev.berth.api.v1beta1.Workload;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code GET /usage?by=namespace|localqueue|clusterqueue|cost-centre&from=&to=} on the metrics
 * port: the usage ledger's records summed as CSV, read from the API server so that every replica
 * answers the same. {@code from} and {@code to} are RFC 3339 times (to exclusive), optional.
 */
public final class UsageEndpoint implements HttpHandler {
  private final KubernetesClient client;

  public UsageEndpoint(KubernetesClient client) {
    this.client = client;
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    if (!"GET".equals(exchange.getRequestMethod())) {
      respond(exchange, 405, "only GET\n");
      return;
    }
    Map<String, String> query = query(exchange.getRequestURI().getRawQuery());
    UsageReport.By by;
    Instant from;
    Instant to;
    try {
      by = UsageReport.By.parse(query.getOrDefault("by", "namespace"));
      from = time(query, "from");
      to = time(query, "to");
    } catch (IllegalArgumentException e) {
      respond(exchange, 400, e.getMessage() + "\n");
      return;
    }
    List<Workload> workloads;
    try {
      workloads = client.resources(Workload.class).inAnyNamespace().list().getItems();
    } catch (KubernetesClientException e) {
      respond(exchange, 503, "cannot list Workloads: " + e.getMessage() + "\n");
      return;
    }
    respond(exchange, 200, UsageReport.csv(by, UsageReport.of(workloads, by, from, to)));
  }

  private static Instant time(Map<String, String> query, String name) {
    String text = query.get(name);
    if (text == null || text.isEmpty()) {
      return null;
    }
    try {
      return Instant.parse(text);
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(
          name + ": not an RFC 3339 time such as 2026-12-01T00:00:00Z: \"" + text + "\"");
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
      out.put(URLDecoder.decode(key, StandardCharsets.UTF_8),
          URLDecoder.decode(value, StandardCharsets.UTF_8));
    }
    return out;
  }

  private static void respond(HttpExchange exchange, int code, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set(
        "Content-Type", code == 200 ? "text/csv; charset=utf-8" : "text/plain; charset=utf-8");
    exchange.sendResponseHeaders(code, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }
}
