package dev.berth.operator.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ControlPlaneScaleTest {
  @Test
  void controllerManagerFlagsCarryEverySetting() {
    assertThat(new ControlPlaneScale(200, 400, 50, Duration.ofMinutes(5)).controllerManagerFlags())
        .containsExactly(
            "--kube-api-qps=200",
            "--kube-api-burst=400",
            "--concurrent-job-syncs=50",
            "--node-monitor-grace-period=300s");
  }

  @Test
  void refusesSettingsTheProcessesWouldRefuseLater() {
    assertThatThrownBy(() -> new ControlPlaneScale(0, 10, 5, Duration.ofSeconds(50)))
        .hasMessageContaining("apiQps 0");
    assertThatThrownBy(() -> new ControlPlaneScale(200, 100, 5, Duration.ofSeconds(50)))
        .hasMessageContaining("apiBurst 100 at least apiQps");
    assertThatThrownBy(() -> new ControlPlaneScale(200, 400, 0, Duration.ofSeconds(50)))
        .hasMessageContaining("concurrentJobSyncs 0");
    assertThatThrownBy(() -> new ControlPlaneScale(200, 400, 5, Duration.ZERO))
        .hasMessageContaining("nodeMonitorGracePeriod");
  }
}
