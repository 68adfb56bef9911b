package dev.berth.e2e.chart;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Grafana dashboard as the chart ships it (helm template with
 * metrics.grafanaDashboard.enabled), and the berth_ series its queries name: every panel target's
 * {@code expr} and every templating variable's query.
 */
public final class GrafanaDashboardQueries {
  private static final Pattern SERIES = Pattern.compile("\\bberth_[a-zA-Z0-9_]+");

  private GrafanaDashboardQueries() {}

  /** The rendered ConfigMap of the dashboard. */
  static GenericKubernetesResource configMap(String... extraArgs) {
    List<String> args = new ArrayList<>(List.of("--set", "metrics.grafanaDashboard.enabled=true"));
    args.addAll(List.of(extraArgs));
    return Manifests.named(
            Manifests.parse(HelmCli.template("berth", "berth-system", args.toArray(String[]::new))),
            "ConfigMap",
            "berth-grafana-dashboard")
        .orElseThrow(() -> new AssertionError("no ConfigMap berth-grafana-dashboard rendered"));
  }

  /** The dashboard JSON in the ConfigMap, parsed (a parse error fails the caller). */
  static JsonNode dashboard(GenericKubernetesResource configMap) {
    @SuppressWarnings("unchecked")
    Map<String, String> data =
        (Map<String, String>) configMap.getAdditionalProperties().get("data");
    try {
      return new ObjectMapper().readTree(data.get("berth.json"));
    } catch (IOException e) {
      throw new UncheckedIOException("the Grafana dashboard is not valid JSON", e);
    }
  }

  /** Every query of the dashboard: panel targets (rows' nested panels too), then variables. */
  static List<String> queries(JsonNode dashboard) {
    List<String> out = new ArrayList<>();
    collect(dashboard.path("panels"), out);
    for (JsonNode variable : dashboard.path("templating").path("list")) {
      JsonNode query = variable.path("query");
      String text = query.isObject() ? query.path("query").asText() : query.asText();
      if ("query".equals(variable.path("type").asText())) {
        out.add(text);
      }
    }
    return out;
  }

  private static void collect(JsonNode panels, List<String> out) {
    for (JsonNode panel : panels) {
      for (JsonNode target : panel.path("targets")) {
        out.add(target.path("expr").asText());
      }
      collect(panel.path("panels"), out);
    }
  }

  /** The berth_ series names the shipped dashboard's queries use (as exported, suffix kept). */
  public static Set<String> metricNames() {
    Set<String> names = new TreeSet<>();
    for (String query : queries(dashboard(configMap()))) {
      Matcher m = SERIES.matcher(query);
      while (m.find()) {
        names.add(m.group());
      }
    }
    return names;
  }
}
