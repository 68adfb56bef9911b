package dev.berth.operator.logging;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.slf4j.event.Level;

/**
 * The operator's log configuration (simplelogger.properties, read by slf4j-simple and by the JSON
 * log alike): Berth's own lines at info, and the library lines that said nothing to act on left
 * out, each by its logger.
 */
class OperatorLogLevelsTest {
  private final LogLevels levels = LogLevels.fromClassPath();

  private boolean writes(String logger, Level level) {
    return level.toInt() >= levels.threshold(logger);
  }

  @Test
  void berthsOwnLinesAtInfo() {
    assertThat(writes("dev.berth.operator.BerthOperator", Level.INFO)).isTrue();
    assertThat(writes("dev.berth.operator.admission.AdmissionLoop", Level.INFO)).isTrue();
    assertThat(writes("dev.berth.operator.admission.AdmissionLoop", Level.DEBUG)).isFalse();
  }

  @Test
  void fabric8sUnstableVersionWarningIsLeftOut() {
    assertThat(writes("io.fabric8.kubernetes.client.dsl.internal.VersionUsageUtils", Level.WARN))
        .isFalse();
    assertThat(writes("io.fabric8.kubernetes.client.dsl.internal.VersionUsageUtils", Level.ERROR))
        .isTrue();
    // The rest of fabric8 still warns.
    assertThat(writes("io.fabric8.kubernetes.client.informers.impl.cache.Reflector", Level.WARN))
        .isTrue();
  }

  @Test
  void josdksConfigurationDumpIsLeftOut() {
    assertThat(writes("Default ConfigurationService implementation", Level.INFO)).isFalse();
    assertThat(writes("Default ConfigurationService implementation", Level.WARN)).isTrue();
    assertThat(writes("io.javaoperatorsdk.operator.Operator", Level.INFO)).isFalse();
  }

  @Test
  void nettysTlsCipherNoticeIsLeftOut() {
    assertThat(writes("io.netty.handler.ssl.ReferenceCountedOpenSslEngine", Level.INFO)).isFalse();
    assertThat(writes("io.netty.handler.ssl.ReferenceCountedOpenSslEngine", Level.WARN)).isTrue();
  }
}
