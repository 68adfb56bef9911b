package dev.berth.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.engine.quota.Quantity;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class QuantityTest {

  static Stream<Arguments> parse() {
    return Stream.of(
        Arguments.of("cpu millicores", "cpu", "500m", 500L),
        Arguments.of("cpu whole cores", "cpu", "2", 2000L),
        Arguments.of("cpu fractional cores", "cpu", "1.5", 1500L),
        Arguments.of("cpu sub-milli rounds up", "cpu", "100u", 1L),
        Arguments.of("cpu exponent", "cpu", "1e3", 1_000_000L),
        Arguments.of("memory binary suffix", "memory", "16Gi", 17_179_869_184L),
        Arguments.of("memory decimal suffix", "memory", "100M", 100_000_000L),
        Arguments.of("memory plain bytes", "memory", "1024", 1024L),
        Arguments.of("memory fraction of a byte rounds up", "memory", "1.5", 2L),
        Arguments.of("memory Ki", "memory", "1.5Ki", 1536L),
        Arguments.of("gpu integer", "nvidia.com/gpu", "8", 8L),
        Arguments.of("gpu exponent", "nvidia.com/gpu", "1e3", 1000L),
        Arguments.of("gpu milli rounds up", "nvidia.com/gpu", "500m", 1L),
        Arguments.of("storage Ti", "ephemeral-storage", "1Ti", 1_099_511_627_776L),
        Arguments.of("exa decimal", "memory", "2E", 2_000_000_000_000_000_000L),
        Arguments.of("leading dot", "cpu", ".5", 500L));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void parse(String name, String resource, String text, long expected) {
    assertThat(Quantity.parse(resource, text)).isEqualTo(expected);
  }

  static Stream<Arguments> format() {
    return Stream.of(
        Arguments.of("cpu whole", "cpu", 2000L, "2"),
        Arguments.of("cpu milli", "cpu", 1500L, "1500m"),
        Arguments.of("memory Gi", "memory", 17_179_869_184L, "16Gi"),
        Arguments.of("memory not a binary multiple", "memory", 100_000_000L, "100000000"),
        Arguments.of("memory Ki", "memory", 1536L, "1536"),
        Arguments.of("memory Mi", "memory", 3L << 20, "3Mi"),
        Arguments.of("gpu", "nvidia.com/gpu", 8L, "8"),
        Arguments.of("zero memory", "memory", 0L, "0"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void format(String name, String resource, long value, String expected) {
    assertThat(Quantity.format(resource, value)).isEqualTo(expected);
  }

  static Stream<Arguments> rejects() {
    return Stream.of(
        Arguments.of("empty", ""),
        Arguments.of("unknown suffix", "5Xi"),
        Arguments.of("letters", "abc"),
        Arguments.of("overflow", "100Ei"),
        Arguments.of("two dots", "1.2.3"));
  }

  @ParameterizedTest(name = "rejects {0}")
  @MethodSource
  void rejects(String name, String text) {
    assertThatThrownBy(() -> Quantity.parse("memory", text))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
