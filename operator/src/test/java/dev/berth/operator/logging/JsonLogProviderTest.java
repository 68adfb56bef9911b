package dev.berth.operator.logging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.slf4j.ILoggerFactory;

class JsonLogProviderTest {
  private static final Instant NOW = Instant.parse("2026-12-07T06:40:01.234Z");
  private final ByteArrayOutputStream written = new ByteArrayOutputStream();

  private ILoggerFactory loggers(String... settings) {
    Properties properties = new Properties();
    for (int i = 0; i < settings.length; i += 2) {
      properties.setProperty(settings[i], settings[i + 1]);
    }
    return JsonLogProvider.factory(
        new LogLevels(properties),
        new PrintStream(written, true, StandardCharsets.UTF_8),
        Clock.fixed(NOW, ZoneOffset.UTC));
  }

  private List<String> lines() {
    return written.toString(StandardCharsets.UTF_8).lines().toList();
  }

  @Test
  void aLineIsOneJsonObjectWithTimeLevelLoggerThreadAndMessage() throws Exception {
    loggers()
        .getLogger("dev.berth.operator.admission.DecisionWriter")
        .info("admitted {} on \"{}\"\nsecond line", "team-llm/llama", "h100");

    assertThat(lines()).hasSize(1);
    JsonNode line = new ObjectMapper().readTree(lines().get(0));
    assertThat(line.isObject()).isTrue();
    assertThat(line.path("time").asText()).isEqualTo("2026-12-07T06:40:01.234Z");
    assertThat(line.path("level").asText()).isEqualTo("INFO");
    assertThat(line.path("logger").asText())
        .isEqualTo("dev.berth.operator.admission.DecisionWriter");
    assertThat(line.path("thread").asText()).isEqualTo(Thread.currentThread().getName());
    assertThat(line.path("message").asText())
        .isEqualTo("admitted team-llm/llama on \"h100\"\nsecond line");
    assertThat(line.has("error")).isFalse();
  }

  @Test
  void anErrorCarriesItsStackTraceInTheSameObject() throws Exception {
    loggers()
        .getLogger("dev.berth.operator.BerthOperator")
        .warn("write of {} failed", "w1", new IllegalStateException("409 Conflict"));

    assertThat(lines()).hasSize(1);
    JsonNode line = new ObjectMapper().readTree(lines().get(0));
    assertThat(line.path("level").asText()).isEqualTo("WARN");
    assertThat(line.path("message").asText()).isEqualTo("write of w1 failed");
    assertThat(line.path("error").asText())
        .startsWith("java.lang.IllegalStateException: 409 Conflict")
        .contains("\tat dev.berth.operator.logging.JsonLogProviderTest");
  }

  @Test
  void levelsAreSlf4jSimplesSettingsWithTheNearestParentWinning() {
    ILoggerFactory loggers =
        loggers(
            "org.slf4j.simpleLogger.defaultLogLevel", "info",
            "org.slf4j.simpleLogger.log.io.fabric8", "warn",
            "org.slf4j.simpleLogger.log.io.fabric8.kubernetes.client.dsl.internal", "off");

    loggers.getLogger("dev.berth.operator.Other").debug("not written");
    loggers.getLogger("io.fabric8.kubernetes.client.informers.X").info("not written");
    loggers.getLogger("io.fabric8.kubernetes.client.dsl.internal.VersionUsageUtils").warn("off");
    loggers.getLogger("io.fabric8.kubernetes.client.informers.X").warn("written");

    assertThat(lines()).singleElement().asString().contains("\"message\":\"written\"");
    assertThat(loggers.getLogger("dev.berth.operator.Other").isInfoEnabled()).isTrue();
    assertThat(loggers.getLogger("dev.berth.operator.Other").isDebugEnabled()).isFalse();
  }

  @Test
  void aBadLevelIsRefusedWithItsKey() {
    assertThatThrownBy(
            () -> loggers("org.slf4j.simpleLogger.log.io.fabric8", "loud").getLogger("io.fabric8"))
        .hasMessage(
            "org.slf4j.simpleLogger.log.io.fabric8: expected trace, debug, info, warn, error or"
                + " off, got 'loud'");
  }

  @Test
  void theFormatIsTextUnlessBerthLogFormatSaysJson() {
    assertThat(LogFormat.from(Map.of())).isEqualTo(LogFormat.TEXT);
    assertThat(LogFormat.from(Map.of("BERTH_LOG_FORMAT", "text"))).isEqualTo(LogFormat.TEXT);
    assertThat(LogFormat.from(Map.of("BERTH_LOG_FORMAT", "JSON"))).isEqualTo(LogFormat.JSON);
    assertThatThrownBy(() -> LogFormat.from(Map.of("BERTH_LOG_FORMAT", "logfmt")))
        .hasMessage("BERTH_LOG_FORMAT: expected text or json, got 'logfmt'");
  }
}
