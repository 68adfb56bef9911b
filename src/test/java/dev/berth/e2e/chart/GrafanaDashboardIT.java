package dev.berth.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 16, deliverable 6: the chart's Grafana dashboard, behind metrics.grafanaDashboard.enabled,
 * is a ConfigMap the Grafana sidecar picks up and holds a dashboard Grafana can import. That its
 * metric names are ones the operator exports is checked against a scrape in DashboardE2EIT.
 */
class GrafanaDashboardIT {
  @Test
  void offByDefault() {
    assertThat(
            Manifests.named(
                Manifests.parse(HelmCli.template("berth", "berth-system")),
                "ConfigMap",
                "berth-grafana-dashboard"))
        .isEmpty();
  }

  @Test
  void aConfigMapForTheSidecarWithAValidDashboard() {
    GenericKubernetesResource cm =
        GrafanaDashboardQueries.configMap(
            "--set", "metrics.grafanaDashboard.namespace=monitoring",
            "--set", "metrics.grafanaDashboard.labels.team=platform");
    assertThat(cm.getMetadata().getLabels())
        .containsEntry("grafana_dashboard", "1")
        .containsEntry("team", "platform");
    assertThat(cm.getMetadata().getNamespace()).isEqualTo("monitoring");
    JsonNode dashboard = GrafanaDashboardQueries.dashboard(cm);
    assertThat(dashboard.path("uid").asText()).isEqualTo("berth-overview");
    assertThat(dashboard.path("title").asText()).isEqualTo("Berth");

    List<String> titles = new ArrayList<>();
    List<Integer> ids = new ArrayList<>();
    for (JsonNode panel : dashboard.path("panels")) {
      titles.add(panel.path("title").asText());
      ids.add(panel.path("id").asInt());
      if (!panel.path("type").asText().equals("row")) {
        assertThat(panel.path("targets")).as(panel.path("title").asText()).isNotEmpty();
        assertThat(panel.path("datasource").path("uid").asText()).isEqualTo("${datasource}");
      }
    }
    assertThat(ids).doesNotHaveDuplicates();
    assertThat(String.join("\n", titles))
        .contains("Wait time to admission")
        .contains("Reserved / nominal quota")
        .contains("Admissions per second")
        .contains("Evictions per second")
        .contains("Preemptions per second")
        .contains("Largest one-unit gang");
    // Every query is a PromQL expression over berth_ series, not an empty target.
    assertThat(GrafanaDashboardQueries.queries(dashboard))
        .allSatisfy(q -> assertThat(q).contains("berth_"));
  }
}
