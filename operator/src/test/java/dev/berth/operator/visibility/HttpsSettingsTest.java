package dev.berth.operator.visibility;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class HttpsSettingsTest {
  @Test
  void defaultsArePort8443WithoutTheDashboard() {
    assertThat(HttpsSettings.from(Map.of())).isEqualTo(new HttpsSettings(8443, false));
  }

  @Test
  void theChartsVariablesAreRead() {
    assertThat(
            HttpsSettings.from(
                Map.of("BERTH_HTTPS_PORT", "9444", "BERTH_DASHBOARD_ENABLED", "true")))
        .isEqualTo(new HttpsSettings(9444, true));
  }

  @Test
  void aBadPortNamesTheVariableAndTheValue() {
    assertThatThrownBy(() -> HttpsSettings.from(Map.of("BERTH_HTTPS_PORT", "70000")))
        .hasMessage("BERTH_HTTPS_PORT: expected a port from 0 to 65535, got '70000'");
    assertThatThrownBy(() -> HttpsSettings.from(Map.of("BERTH_HTTPS_PORT", "https")))
        .hasMessage("BERTH_HTTPS_PORT: expected a port from 0 to 65535, got 'https'");
  }
}
