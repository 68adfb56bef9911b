package dev.berth.operator.budget;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/** The numbers of a budget's messages, as a platform admin reads them. */
final class BudgetMessages {
  private static final DateTimeFormatter RESET =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm'Z'").withZone(ZoneOffset.UTC);

  private BudgetMessages() {}

  /**
   * "Budget team-llm (LocalQueue team-llm/train): used 20,013 of 20,000 nvidia.com/gpu-hours..."
   */
  static String exhausted(
      String name,
      BudgetTarget target,
      String resource,
      BigDecimal used,
      BigDecimal limit,
      BudgetWindow.Span span) {
    return "Budget "
        + name
        + " ("
        + target
        + "): used "
        + hours(used)
        + " of "
        + hours(limit)
        + " "
        + resource
        + "-hours in "
        + span.label()
        + "; resets "
        + reset(span.end());
  }

  /** "left 1,200.5 of 20,000 nvidia.com/gpu-hours in 2026-12" for every limited resource. */
  static String left(
      java.util.Map<String, BigDecimal> used,
      java.util.Map<String, BigDecimal> limits,
      BudgetWindow.Span span) {
    StringBuilder sb = new StringBuilder();
    for (var e : limits.entrySet()) {
      sb.append(sb.length() == 0 ? "left " : ", ")
          .append(hours(e.getValue().subtract(used.getOrDefault(e.getKey(), BigDecimal.ZERO))))
          .append(" of ")
          .append(hours(e.getValue()))
          .append(' ')
          .append(e.getKey())
          .append("-hours");
    }
    return sb.append(" in ")
        .append(span.label())
        .append("; resets ")
        .append(reset(span.end()))
        .toString();
  }

  /** Grouped thousands, at most four decimals, rounded down (never shows more than was used). */
  static String hours(BigDecimal hours) {
    DecimalFormat f =
        new DecimalFormat("#,##0.####", DecimalFormatSymbols.getInstance(Locale.ROOT));
    f.setRoundingMode(RoundingMode.DOWN);
    return f.format(hours);
  }

  static String reset(Instant at) {
    return RESET.format(at);
  }
}
