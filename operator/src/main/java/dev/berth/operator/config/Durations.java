package dev.berth.operator.config;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations as Kueue's configuration writes them (Go's {@code time.Duration} text), in whole
 * seconds: {@code 90s}, {@code 5m}, {@code 1h30m}, {@code 0s}.
 */
final class Durations {
  private static final Pattern FORMAT = Pattern.compile("(?:(\\d+)h)?(?:(\\d+)m)?(?:(\\d+)s)?");

  private Durations() {}

  /** The duration, or null when {@code text} is not one. */
  static Duration parse(String text) {
    Matcher m = FORMAT.matcher(text);
    if (text.isEmpty() || !m.matches()) {
      return text.equals("0") ? Duration.ZERO : null;
    }
    try {
      return Duration.ofHours(number(m.group(1)))
          .plusMinutes(number(m.group(2)))
          .plusSeconds(number(m.group(3)));
    } catch (ArithmeticException | NumberFormatException e) {
      return null;
    }
  }

  /** The shortest text {@link #parse} reads back as {@code d}. */
  static String format(Duration d) {
    long seconds = d.toSeconds();
    if (seconds == 0) {
      return "0s";
    }
    StringBuilder text = new StringBuilder();
    if (seconds >= 3600) {
      text.append(seconds / 3600).append('h');
    }
    if (seconds % 3600 >= 60) {
      text.append(seconds % 3600 / 60).append('m');
    }
    if (seconds % 60 > 0) {
      text.append(seconds % 60).append('s');
    }
    return text.toString();
  }

  private static long number(String group) {
    return group == null ? 0 : Long.parseLong(group);
  }
}
