package dev.berth.operator.usage;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.berth.engine.usage.UtilizationSamples;
import dev.berth.engine.usage.UtilizationSamples.Sample;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Asks Prometheus (HTTP API, {@code /api/v1/query_range}) how busy the GPUs of a run's pods were:
 * the DCGM series of the pods, summed per pod, sampled every step from the run's start to its end,
 * integrated into device-seconds.
 */
public final class PrometheusUtilization {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final UtilizationSettings settings;
  private final HttpClient http;

  public PrometheusUtilization(UtilizationSettings settings) {
    this.settings = settings;
    this.http = HttpClient.newBuilder().connectTimeout(settings.queryTimeout()).build();
  }

  /**
   * GPU-seconds used per pod of {@code pods} in {@code namespace} between the two times (epoch ms);
   * a pod without series is absent.
   *
   * @throws IOException when Prometheus cannot be reached or refuses the query
   */
  public Map<String, BigDecimal> deviceSeconds(
      String namespace, Collection<String> pods, long start, long end)
      throws IOException, InterruptedException {
    if (pods.isEmpty() || end <= start) {
      return Map.of();
    }
    long step = UtilizationSamples.stepFor(start, end);
    String form =
        "query="
            + encode(query(namespace, pods))
            + "&start="
            + seconds(start)
            + "&end="
            + seconds(end)
            + "&step="
            + seconds(step);
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(settings.prometheus() + "/api/v1/query_range"))
            .timeout(settings.queryTimeout())
            .header("Content-Type", "application/x-www-form-urlencoded")
            .POST(HttpRequest.BodyPublishers.ofString(form))
            .build();
    HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IOException(
          "Prometheus answered " + response.statusCode() + ": " + abbreviate(response.body()));
    }
    Map<String, BigDecimal> out = new HashMap<>();
    for (Map.Entry<String, List<Sample>> e : samples(response.body()).entrySet()) {
      out.put(
          e.getKey(),
          UtilizationSamples.deviceSeconds(e.getValue(), start, end, step, settings.scale()));
    }
    return out;
  }

  /** The PromQL: the metric's series of these pods, summed per pod (one series per GPU). */
  String query(String namespace, Collection<String> pods) {
    String names =
        pods.stream().sorted().map(p -> p.replace(".", "\\\\.")).collect(Collectors.joining("|"));
    return "sum by ("
        + settings.podLabel()
        + ") ("
        + settings.metric()
        + "{"
        + settings.namespaceLabel()
        + "=\""
        + namespace
        + "\","
        + settings.podLabel()
        + "=~\""
        + names
        + "\"})";
  }

  /** A query_range answer's samples per pod. */
  Map<String, List<Sample>> samples(String body) throws IOException {
    JsonNode root = JSON.readTree(body);
    if (!"success".equals(root.path("status").asText())) {
      throw new IOException("Prometheus query failed: " + abbreviate(body));
    }
    Map<String, List<Sample>> out = new HashMap<>();
    for (JsonNode series : root.path("data").path("result")) {
      String pod = series.path("metric").path(settings.podLabel()).asText("");
      List<Sample> samples = out.computeIfAbsent(pod, p -> new ArrayList<>());
      for (JsonNode point : series.path("values")) {
        long at = new BigDecimal(point.get(0).asText()).movePointRight(3).longValue();
        samples.add(new Sample(at, Double.parseDouble(point.get(1).asText())));
      }
    }
    return out;
  }

  private static String seconds(long millis) {
    return BigDecimal.valueOf(millis).movePointLeft(3).toPlainString();
  }

  private static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  private static String abbreviate(String body) {
    return body.length() > 300 ? body.substring(0, 300) + "…" : body;
  }
}
