package dev.berth.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Properties;
import org.junit.jupiter.api.Test;

class LocalModeLogTest {
  @Test
  void theTerminalGetsWarningsOnlyUnlessTheCommandLineSaysOtherwise() {
    Properties none = new Properties();
    LocalMode.quietLog(none);
    assertThat(none).containsEntry("org.slf4j.simpleLogger.defaultLogLevel", "warn");

    Properties given = new Properties();
    given.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "debug");
    LocalMode.quietLog(given);
    assertThat(given).containsEntry("org.slf4j.simpleLogger.defaultLogLevel", "debug");
  }
}
