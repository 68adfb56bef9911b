package dev.berth.operator.usage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.operator.config.ConfigurationLoader;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class UtilizationSettingsTest {
  /** The settings the configuration's loader makes of these environment variables. */
  private static UtilizationSettings from(Map<String, String> env) {
    return UtilizationSettings.of(ConfigurationLoader.fromEnvironment(env).utilization());
  }

  @Test
  void withoutAUrlThereIsNoJoin() {
    assertThat(from(Map.of()).enabled()).isFalse();
    assertThat(from(Map.of("BERTH_PROMETHEUS_URL", " ")).enabled()).isFalse();
  }

  @Test
  void theDefaultsAreDcgmGpuUtilByPodAMinuteAfterTheRun() {
    UtilizationSettings s = from(Map.of("BERTH_PROMETHEUS_URL", "http://prometheus:9090/"));
    assertThat(s.prometheus()).hasToString("http://prometheus:9090");
    assertThat(s.metric()).isEqualTo("DCGM_FI_DEV_GPU_UTIL");
    assertThat(s.scale()).isEqualByComparingTo("0.01");
    assertThat(s.podLabel()).isEqualTo("pod");
    assertThat(s.namespaceLabel()).isEqualTo("namespace");
    assertThat(s.delay()).isEqualTo(Duration.ofSeconds(60));
  }

  @Test
  void smActivityIsARatio() {
    UtilizationSettings s =
        from(
            Map.of(
                "BERTH_PROMETHEUS_URL",
                "https://prom.example",
                "BERTH_UTILIZATION_METRIC",
                "DCGM_FI_PROF_SM_ACTIVE",
                "BERTH_UTILIZATION_POD_LABEL",
                "exported_pod"));
    assertThat(s.scale()).isEqualByComparingTo("1");
    assertThat(s.podLabel()).isEqualTo("exported_pod");
  }

  @Test
  void badValuesAreRefusedNamingTheVariable() {
    String url = "BERTH_PROMETHEUS_URL";
    assertThatThrownBy(() -> from(Map.of(url, "prometheus:9090")))
        .hasMessageContaining(
            "utilization.prometheusUrl (BERTH_PROMETHEUS_URL): must be an http:// or https:// URL");
    assertThatThrownBy(() -> from(Map.of(url, "http://p", "BERTH_UTILIZATION_METRIC", "GPU_UTIL")))
        .hasMessageContaining(
            "utilization.metric (BERTH_UTILIZATION_METRIC): must be one of DCGM_FI_DEV_GPU_UTIL,"
                + " DCGM_FI_PROF_GR_ENGINE_ACTIVE, DCGM_FI_PROF_SM_ACTIVE, got \"GPU_UTIL\"");
    assertThatThrownBy(() -> from(Map.of(url, "http://p", "BERTH_UTILIZATION_DELAY_SECONDS", "1m")))
        .hasMessageContaining(
            "utilization.delay (BERTH_UTILIZATION_DELAY_SECONDS): must be a whole number");
    assertThatThrownBy(
            () -> from(Map.of(url, "http://p", "BERTH_UTILIZATION_POD_LABEL", "pod-name")))
        .hasMessageContaining(
            "utilization.podLabel (BERTH_UTILIZATION_POD_LABEL): not a Prometheus label name");
  }

  @Test
  void theQueryNamesThePodsOfTheRunAndSumsTheirGpusPerPod() throws Exception {
    PrometheusUtilization p =
        new PrometheusUtilization(from(Map.of("BERTH_PROMETHEUS_URL", "http://p")));
    assertThat(p.query("team-llm", List.of("train-b.x", "train-a")))
        .isEqualTo(
            "sum by (pod) (DCGM_FI_DEV_GPU_UTIL{namespace=\"team-llm\","
                + "pod=~\"train-a|train-b\\\\.x\"})");
    var samples =
        p.samples(
            "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\","
                + "\"result\":[{\"metric\":{\"pod\":\"train-a\"},\"values\":[[1764547200.5,\"150\"],"
                + "[1764547201.5,\"100\"]]}]}}");
    assertThat(samples.get("train-a"))
        .extracting(s -> s.at() + "=" + s.value())
        .containsExactly("1764547200500=150.0", "1764547201500=100.0");
    assertThatThrownBy(() -> p.samples("{\"status\":\"error\",\"error\":\"parse error\"}"))
        .hasMessageContaining("parse error");
  }
}
