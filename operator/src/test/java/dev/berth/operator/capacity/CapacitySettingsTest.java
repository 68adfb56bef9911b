package dev.berth.operator.capacity;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class CapacitySettingsTest {
  @Test
  void unsetOrBlankMeansTheDefaultFailureAndMaintenanceKeys() {
    assertThat(CapacitySettings.from(Map.of()).excludedTaintKeys())
        .contains(
            "node.kubernetes.io/unreachable",
            "berth.dev/maintenance",
            "ToBeDeletedByClusterAutoscaler");
    assertThat(CapacitySettings.from(Map.of(CapacitySettings.ENV, "  ")))
        .isEqualTo(CapacitySettings.defaults());
  }

  @Test
  void aCommaListReplacesTheDefaults() {
    assertThat(
            CapacitySettings.from(Map.of(CapacitySettings.ENV, " example.com/drain, ,a/b"))
                .excludedTaintKeys())
        .containsExactlyInAnyOrder("example.com/drain", "a/b");
  }
}
