package dev.berth.operator.budget;

import dev.berth.api.v1beta1.BudgetPeriod;
import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.YearMonth;
import java.time.ZoneId;
import java.time.temporal.IsoFields;
import java.time.temporal.TemporalAdjusters;

/**
 * A budget's calendar windows: days, ISO weeks (Monday to Monday) or months, their boundaries at
 * local midnight in the budget's time zone. A window is as long as the calendar makes it: a month
 * of 28 to 31 days, a day of 23 or 25 hours where daylight saving time begins or ends. Where a zone
 * skips midnight (a DST change at 00:00), the window starts at the first instant of the day.
 */
public record BudgetWindow(BudgetPeriod period, ZoneId zone) {

  /** One window: its label (2026-12, 2026-W49, 2026-12-07) and its instants, end exclusive. */
  public record Span(String label, Instant start, Instant end) {
    public boolean contains(Instant t) {
      return !t.isBefore(start) && t.isBefore(end);
    }
  }

  /** The window {@code now} falls in. */
  public Span at(Instant now) {
    LocalDate today = now.atZone(zone).toLocalDate();
    return switch (period) {
      case Day -> span(today.toString(), today, today.plusDays(1));
      case Week -> {
        LocalDate monday = today.with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY));
        String label =
            String.format(
                "%d-W%02d",
                monday.get(IsoFields.WEEK_BASED_YEAR),
                monday.get(IsoFields.WEEK_OF_WEEK_BASED_YEAR));
        yield span(label, monday, monday.plusWeeks(1));
      }
      case Month -> {
        LocalDate first = today.withDayOfMonth(1);
        yield span(YearMonth.from(first).toString(), first, first.plusMonths(1));
      }
    };
  }

  private Span span(String label, LocalDate from, LocalDate to) {
    return new Span(label, from.atStartOfDay(zone).toInstant(), to.atStartOfDay(zone).toInstant());
  }
}
