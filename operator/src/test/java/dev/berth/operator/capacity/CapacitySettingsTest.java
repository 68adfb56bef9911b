package dev.berth.operator.capacity;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.operator.config.ConfigurationLoader;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CapacitySettingsTest {
  private static final String ENV = "BERTH_CAPACITY_EXCLUDED_TAINT_KEYS";

  /** The settings the configuration's loader makes of these environment variables. */
  private static CapacitySettings from(Map<String, String> env) {
    return CapacitySettings.of(ConfigurationLoader.fromEnvironment(env).capacity());
  }

  @Test
  void unsetOrBlankMeansTheDefaultFailureAndMaintenanceKeys() {
    assertThat(from(Map.of()).excludedTaintKeys())
        .contains(
            "node.kubernetes.io/unreachable",
            "berth.dev/maintenance",
            "ToBeDeletedByClusterAutoscaler");
    assertThat(from(Map.of(ENV, "  "))).isEqualTo(CapacitySettings.defaults());
  }

  @Test
  void aCommaListReplacesTheDefaults() {
    assertThat(from(Map.of(ENV, " example.com/drain, ,a/b")).excludedTaintKeys())
        .containsExactlyInAnyOrder("example.com/drain", "a/b");
  }
}
