package dev.berth.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

class TimestampsTest {
  private static final long YEAR_0 = Instant.parse("0000-01-01T00:00:00Z").getEpochSecond();
  private static final long YEAR_9999_END = Instant.parse("9999-12-31T23:59:59Z").getEpochSecond();

  @Property(tries = 2000)
  void wholeSecondsAsTheApiServerWritesThemReadAsInstantParseReadsThem(
      @ForAll @LongRange(min = -62167219200L, max = 253402300799L) long epochSecond) {
    String text = Instant.ofEpochSecond(epochSecond).toString();
    assertThat(text).hasSize(20);
    assertThat(Timestamps.millis(text)).isEqualTo(epochSecond * 1000);
  }

  @Property(tries = 2000)
  void fractionsAsInstantToStringWritesThemReadAsInstantParseReadsThem(
      @ForAll @LongRange(min = -62167219200L, max = 253402300799L) long epochSecond,
      @ForAll @LongRange(min = 1, max = 999_999_999) long nanos) {
    String text = Instant.ofEpochSecond(epochSecond, nanos).toString();
    assertThat(Timestamps.millis(text)).isEqualTo(Instant.parse(text).toEpochMilli());
  }

  /** One to nine fraction digits, each count, whatever Instant.toString would have written. */
  @Property(tries = 2000)
  void everyFractionLengthReadsAsInstantParseReadsIt(
      @ForAll @LongRange(min = -62167219200L, max = 253402300799L) long epochSecond,
      @ForAll @LongRange(min = 0, max = 999_999_999) long nanos,
      @ForAll @LongRange(min = 1, max = 9) long digits) {
    String whole = Instant.ofEpochSecond(epochSecond).toString();
    String fraction = String.format("%09d", nanos).substring(0, (int) digits);
    String text = whole.substring(0, 19) + "." + fraction + "Z";
    assertReadAsInstantParseReadsIt(text);
  }

  /** Strings shaped like a timestamp, with any character anywhere: the same answer or exception. */
  @Property(tries = 5000)
  void anythingOfThatShapeGetsInstantParsesAnswerOrException(
      @ForAll("nearTimestamps") String text) {
    assertReadAsInstantParseReadsIt(text);
  }

  /** The same epoch millis as Instant.parse, or a DateTimeParseException where it throws one. */
  private static void assertReadAsInstantParseReadsIt(String text) {
    Long expected;
    try {
      expected = Instant.parse(text).toEpochMilli();
    } catch (DateTimeParseException e) {
      expected = null;
    }
    if (expected == null) {
      assertThatThrownBy(() -> Timestamps.millis(text))
          .as(text)
          .isInstanceOf(DateTimeParseException.class);
    } else {
      assertThat(Timestamps.millis(text)).as(text).isEqualTo(expected);
    }
  }

  @Provide
  Arbitrary<String> nearTimestamps() {
    Arbitrary<String> valid =
        Arbitraries.oneOf(
            Arbitraries.longs()
                .between(YEAR_0, YEAR_9999_END)
                .map(s -> Instant.ofEpochSecond(s).toString()),
            Arbitraries.longs()
                .between(YEAR_0, YEAR_9999_END)
                .flatMap(
                    s ->
                        Arbitraries.integers()
                            .between(1, 999_999_999)
                            .map(n -> Instant.ofEpochSecond(s, n).toString())));
    return valid.flatMap(
        base ->
            Arbitraries.integers()
                .between(0, base.length() - 1)
                .flatMap(
                    at ->
                        Arbitraries.of(
                                '0', '1', '2', '3', '5', '6', '9', '-', ':', 'T', 'Z', 'x', ' ',
                                '+', '.')
                            .map(c -> base.substring(0, at) + c + base.substring(at + 1))));
  }

  @Test
  void theEdgesOfTheFastFormGoToInstantParse() {
    // A leap second, impossible dates and fields out of range: the exception or answer is its.
    for (String text :
        new String[] {
          "2026-12-31T23:59:60Z",
          "2026-02-30T00:00:00Z",
          "2026-13-01T00:00:00Z",
          "2026-00-10T00:00:00Z",
          "2026-12-06T24:00:00Z", // the end of the day: Instant.parse reads it as the next day
          "2026-12-06T24:30:00Z",
          "2026-12-06T23:59:59Z",
          "0000-01-01T00:00:00Z",
          "2026-12-06T10:60:00Z",
          "2026-12-06t10:00:00z",
          "2026-12-06T10:00:00+01:00",
          "2026-12-06T10:00:00.Z",
          "2026-12-06T10:00:00.1234567890Z",
          "2026-12-06T10:00:00,5Z",
          "2026-12-06T10:00:00.5z",
          "2026-12-06T10:00:00.5+01:00",
          "2026-12-06T10:00:00.-5Z",
          "2026-12-31T23:59:60.5Z",
          "0000-01-01T00:00:00.999999999Z",
          "1969-12-31T23:59:59.999Z",
        }) {
      assertReadAsInstantParseReadsIt(text);
    }
    assertThat(Timestamps.millis("2024-02-29T12:00:01Z"))
        .isEqualTo(Instant.parse("2024-02-29T12:00:01Z").toEpochMilli());
    assertThat(Timestamps.millis("2026-12-06T10:00:00.5Z"))
        .isEqualTo(Instant.parse("2026-12-06T10:00:00Z").toEpochMilli() + 500);
    assertThat(Timestamps.millis("2026-12-06T10:00:00.0429Z"))
        .isEqualTo(Instant.parse("2026-12-06T10:00:00Z").toEpochMilli() + 42);
  }
}
