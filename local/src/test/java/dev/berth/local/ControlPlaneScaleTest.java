package dev.berth.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ControlPlaneScaleTest {
  @Test
  void controllerManagerFlagsCarryEverySetting() {
    assertThat(
            new ControlPlaneScale(200, 400, 50, Duration.ofMinutes(5), 32).controllerManagerFlags())
        .containsExactly(
            "--kube-api-qps=200",
            "--kube-api-burst=400",
            "--concurrent-job-syncs=50",
            "--node-monitor-grace-period=300s");
  }

  @Test
  void refusesSettingsTheProcessesWouldRefuseLater() {
    assertThatThrownBy(() -> new ControlPlaneScale(0, 10, 5, Duration.ofSeconds(50), 4))
        .hasMessageContaining("apiQps 0");
    assertThatThrownBy(() -> new ControlPlaneScale(200, 100, 5, Duration.ofSeconds(50), 4))
        .hasMessageContaining("apiBurst 100 at least apiQps");
    assertThatThrownBy(() -> new ControlPlaneScale(200, 400, 0, Duration.ofSeconds(50), 4))
        .hasMessageContaining("concurrentJobSyncs 0");
    assertThatThrownBy(() -> new ControlPlaneScale(200, 400, 5, Duration.ZERO, 4))
        .hasMessageContaining("nodeMonitorGracePeriod");
    assertThatThrownBy(() -> new ControlPlaneScale(200, 400, 5, Duration.ofSeconds(50), 0))
        .hasMessageContaining("kwokWorkers 0");
  }

  @Test
  void kwokReadsItsWorkersFromAConfigurationDocumentAfterTheStages() throws Exception {
    ControlPlaneScale scale = new ControlPlaneScale(200, 400, 50, Duration.ofMinutes(5), 32);
    String config = Kwok.config(Optional.empty(), Optional.of(scale));
    List<Map<?, ?>> documents = new ArrayList<>();
    try (MappingIterator<Map<?, ?>> it = new YAMLMapper().readerFor(Map.class).readValues(config)) {
      while (it.hasNext()) {
        documents.add(it.next());
      }
    }
    assertThat(documents)
        .<Object>extracting(d -> d.get("kind"))
        .contains("Stage")
        .endsWith("KwokConfiguration");
    Map<?, ?> kwok = documents.get(documents.size() - 1);
    assertThat(kwok.get("apiVersion")).isEqualTo("config.kwok.x-k8s.io/v1alpha1");
    assertThat(kwok.get("options"))
        .isEqualTo(
            Map.of(
                "podPlayStageParallelism", 32,
                "nodePlayStageParallelism", 32,
                "nodeLeaseParallelism", 32));
    assertThat(Kwok.config(Optional.empty(), Optional.empty()))
        .isEqualTo(Kwok.stages(Optional.empty()))
        .doesNotContain("KwokConfiguration");
  }
}
