package dev.berth.operator.budget;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.api.v1beta1.BudgetPeriod;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The window arithmetic: which window an instant falls in, where it starts and ends (UTC), and how
 * long it is, across time zones, month lengths, leap years, ISO weeks at the year's turn and the
 * days daylight saving time makes 23 or 25 hours long.
 */
class BudgetWindowTest {
  @ParameterizedTest(name = "{0} {1} at {2}: {3}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          # period | zone | instant | label | start | end | hours
          Month | UTC | 2026-12-07T18:00:00Z | 2026-12 | 2026-12-01T00:00:00Z | 2027-01-01T00:00:00Z | 744
          Month | UTC | 2026-12-31T23:59:59.999Z | 2026-12 | 2026-12-01T00:00:00Z | 2027-01-01T00:00:00Z | 744
          Month | UTC | 2027-01-01T00:00:00Z | 2027-01 | 2027-01-01T00:00:00Z | 2027-02-01T00:00:00Z | 744
          Month | UTC | 2027-02-14T12:00:00Z | 2027-02 | 2027-02-01T00:00:00Z | 2027-03-01T00:00:00Z | 672
          Month | UTC | 2028-02-29T12:00:00Z | 2028-02 | 2028-02-01T00:00:00Z | 2028-03-01T00:00:00Z | 696
          Month | UTC | 2026-04-30T12:00:00Z | 2026-04 | 2026-04-01T00:00:00Z | 2026-05-01T00:00:00Z | 720
          Month | Asia/Tokyo | 2026-11-30T15:30:00Z | 2026-12 | 2026-11-30T15:00:00Z | 2026-12-31T15:00:00Z | 744
          Month | Asia/Tokyo | 2026-11-30T14:59:59Z | 2026-11 | 2026-10-31T15:00:00Z | 2026-11-30T15:00:00Z | 720
          Month | America/New_York | 2026-03-15T12:00:00Z | 2026-03 | 2026-03-01T05:00:00Z | 2026-04-01T04:00:00Z | 743
          Month | America/New_York | 2026-11-15T12:00:00Z | 2026-11 | 2026-11-01T04:00:00Z | 2026-12-01T05:00:00Z | 721
          Month | Europe/Berlin | 2026-12-31T23:30:00Z | 2027-01 | 2026-12-31T23:00:00Z | 2027-01-31T23:00:00Z | 744
          Week | UTC | 2026-12-07T18:00:00Z | 2026-W50 | 2026-12-07T00:00:00Z | 2026-12-14T00:00:00Z | 168
          Week | UTC | 2026-12-13T23:59:59Z | 2026-W50 | 2026-12-07T00:00:00Z | 2026-12-14T00:00:00Z | 168
          Week | UTC | 2027-01-01T12:00:00Z | 2026-W53 | 2026-12-28T00:00:00Z | 2027-01-04T00:00:00Z | 168
          Week | UTC | 2027-01-04T00:00:00Z | 2027-W01 | 2027-01-04T00:00:00Z | 2027-01-11T00:00:00Z | 168
          Week | UTC | 2025-12-31T12:00:00Z | 2026-W01 | 2025-12-29T00:00:00Z | 2026-01-05T00:00:00Z | 168
          Week | Europe/Berlin | 2026-03-25T12:00:00Z | 2026-W13 | 2026-03-22T23:00:00Z | 2026-03-29T22:00:00Z | 167
          Day | UTC | 2026-12-07T18:00:00Z | 2026-12-07 | 2026-12-07T00:00:00Z | 2026-12-08T00:00:00Z | 24
          Day | Europe/Berlin | 2026-12-07T23:30:00Z | 2026-12-08 | 2026-12-07T23:00:00Z | 2026-12-08T23:00:00Z | 24
          Day | Europe/Berlin | 2026-03-29T12:00:00Z | 2026-03-29 | 2026-03-28T23:00:00Z | 2026-03-29T22:00:00Z | 23
          Day | Europe/Berlin | 2026-10-25T12:00:00Z | 2026-10-25 | 2026-10-24T22:00:00Z | 2026-10-25T23:00:00Z | 25
          Day | America/Santiago | 2026-09-06T12:00:00Z | 2026-09-06 | 2026-09-06T04:00:00Z | 2026-09-07T03:00:00Z | 23
          Day | Asia/Kolkata | 2026-12-07T18:30:00Z | 2026-12-08 | 2026-12-07T18:30:00Z | 2026-12-08T18:30:00Z | 24
          """)
  void theWindowOfAnInstant(
      BudgetPeriod period,
      String zone,
      String instant,
      String label,
      String start,
      String end,
      long hours) {
    BudgetWindow.Span span = new BudgetWindow(period, ZoneId.of(zone)).at(Instant.parse(instant));
    assertThat(span.label()).isEqualTo(label);
    assertThat(span.start()).isEqualTo(Instant.parse(start));
    assertThat(span.end()).isEqualTo(Instant.parse(end));
    assertThat(Duration.between(span.start(), span.end()).toHours()).isEqualTo(hours);
    assertThat(span.contains(Instant.parse(instant))).isTrue();
    assertThat(span.contains(span.end())).as("the end is the next window's").isFalse();
  }
}
