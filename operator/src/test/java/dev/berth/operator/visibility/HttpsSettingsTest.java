package dev.berth.operator.visibility;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.operator.config.ConfigurationLoader;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HttpsSettingsTest {
  /** The settings the configuration's loader makes of these environment variables. */
  private static HttpsSettings from(Map<String, String> env) {
    return HttpsSettings.of(ConfigurationLoader.fromEnvironment(env).visibility());
  }

  @Test
  void defaultsArePort8443WithoutTheDashboard() {
    assertThat(from(Map.of())).isEqualTo(new HttpsSettings(8443, false));
  }

  @Test
  void theChartsVariablesAreRead() {
    assertThat(from(Map.of("BERTH_HTTPS_PORT", "9444", "BERTH_DASHBOARD_ENABLED", "true")))
        .isEqualTo(new HttpsSettings(9444, true));
  }

  @Test
  void aBadPortNamesTheVariableAndTheValue() {
    assertThatThrownBy(() -> from(Map.of("BERTH_HTTPS_PORT", "70000")))
        .hasMessageContaining(
            "visibility.port (BERTH_HTTPS_PORT): must be from 0 to 65535, got 70000");
    assertThatThrownBy(() -> from(Map.of("BERTH_HTTPS_PORT", "https")))
        .hasMessageContaining(
            "visibility.port (BERTH_HTTPS_PORT): must be a whole number, got \"https\"");
  }
}
