package dev.berth.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.operator.config.ConfigurationLoader;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WaitForPodsReadyTest {
  private static final String P = "BERTH_WAIT_FOR_PODS_READY_";

  /** The settings the configuration's loader makes of these environment variables. */
  private static WaitForPodsReady from(Map<String, String> env) {
    return WaitForPodsReady.of(ConfigurationLoader.fromEnvironment(env).waitForPodsReady());
  }

  @Test
  void kueueDefaultsWhenNothingIsSet() {
    WaitForPodsReady w = from(Map.of());
    assertThat(w).isEqualTo(WaitForPodsReady.DEFAULT);
    assertThat(w.timeout()).isEqualTo(Duration.ofMinutes(5));
    assertThat(w.backoff().baseSeconds()).isEqualTo(60);
    assertThat(w.backoff().maxSeconds()).isEqualTo(3600);
    assertThat(w.backoff().limitCount()).isNull();
  }

  @Test
  void everySettingIsRead() {
    WaitForPodsReady w =
        from(
            Map.of(
                P + "ENABLE",
                "true",
                P + "TIMEOUT_SECONDS",
                "120",
                P + "BLOCK_ADMISSION",
                "true",
                P + "RECOVERY_TIMEOUT_SECONDS",
                "30",
                P + "REQUEUING_TIMESTAMP",
                "Creation",
                P + "BACKOFF_BASE_SECONDS",
                "10",
                P + "BACKOFF_MAX_SECONDS",
                "600",
                P + "BACKOFF_LIMIT_COUNT",
                "5"));
    assertThat(w.enable()).isTrue();
    assertThat(w.timeout()).isEqualTo(Duration.ofSeconds(120));
    assertThat(w.blockAdmission()).isTrue();
    assertThat(w.recoveryTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(w.timestamp()).isEqualTo(WaitForPodsReady.RequeuingTimestamp.Creation);
    assertThat(w.backoff().limitCount()).isEqualTo(5);
  }

  @Test
  void aBadValueNamesItsVariable() {
    assertThatThrownBy(() -> from(Map.of(P + "BACKOFF_BASE_SECONDS", "-1")))
        .hasMessageContaining(P + "BACKOFF_BASE_SECONDS");
    assertThatThrownBy(() -> from(Map.of(P + "REQUEUING_TIMESTAMP", "Now")))
        .hasMessageContaining("Eviction or Creation");
    assertThatThrownBy(() -> from(Map.of(P + "TIMEOUT_SECONDS", "0")))
        .hasMessageContaining(P + "TIMEOUT_SECONDS): must be at least 1");
    assertThatThrownBy(() -> from(Map.of(P + "RECOVERY_TIMEOUT_SECONDS", "0")))
        .hasMessageContaining(P + "RECOVERY_TIMEOUT_SECONDS): must be at least 1");
  }
}
