package dev.berth.operator;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;

/**
 * Epoch millis of the RFC 3339 times the API server and the operator write, read without {@link
 * Instant#parse}'s general formatter: whole seconds ({@code 2026-12-06T09:28:13Z}: the API server's
 * metadata.creationTimestamp, conditions other writers set) and a fraction of one to nine digits
 * ({@code 2026-12-06T09:28:13.512734Z}: {@link Instant#toString}, the conditions and usage times
 * the operator writes). The operator reads several such times of every Workload it observes, and
 * the formatter was 2-3 % of its CPU on issue 20's baseline (whole seconds first, then fractions,
 * which it still sent to the formatter). Any other form (offsets, a lower-case {@code t} or {@code
 * z}, anything malformed) goes to {@link Instant#parse}, so the answer and the exception are always
 * its.
 */
public final class Timestamps {
  private Timestamps() {}

  /**
   * As {@code Instant.parse(text).toEpochMilli()}.
   *
   * @throws DateTimeParseException as {@link Instant#parse} throws it
   */
  public static long millis(CharSequence text) {
    int length = text.length();
    // The fraction's milliseconds (its first three digits), or -1 when there is none.
    int fraction = length == 20 ? 0 : fractionMillis(text, length);
    if (fraction >= 0
        && text.charAt(4) == '-'
        && text.charAt(7) == '-'
        && text.charAt(10) == 'T'
        && text.charAt(13) == ':'
        && text.charAt(16) == ':'
        && text.charAt(length - 1) == 'Z') {
      int year = digits(text, 0, 4);
      int month = digits(text, 5, 2);
      int day = digits(text, 8, 2);
      int hour = digits(text, 11, 2);
      int minute = digits(text, 14, 2);
      int second = digits(text, 17, 2);
      // A leap second (60) and every out-of-range field are Instant.parse's to answer.
      if (year >= 0
          && month >= 0
          && day >= 0
          && hour >= 0
          && hour < 24
          && minute >= 0
          && minute < 60
          && second >= 0
          && second < 60) {
        try {
          long days = LocalDate.of(year, month, day).toEpochDay();
          // As Instant.toEpochMilli: whole seconds, plus the fraction's whole milliseconds.
          return ((days * 24 + hour) * 60 + minute) * 60_000L + second * 1000L + fraction;
        } catch (DateTimeException e) {
          // No such date (month 13, 30 February): Instant.parse says so in its own words.
        }
      }
    }
    return Instant.parse(text).toEpochMilli();
  }

  /**
   * For {@code ss.f…Z} at position 19 (one to nine digits): the milliseconds of the fraction; -1
   * for any other length or shape (then the caller leaves the text to {@link Instant#parse}).
   */
  private static int fractionMillis(CharSequence text, int length) {
    int digits = length - 21; // after "…ss." and before "Z"
    if (digits < 1 || digits > 9 || text.charAt(19) != '.') {
      return -1;
    }
    int millis = 0;
    for (int i = 0; i < digits; i++) {
      char c = text.charAt(20 + i);
      if (c < '0' || c > '9') {
        return -1;
      }
      if (i < 3) {
        millis = millis * 10 + (c - '0');
      }
    }
    for (int i = digits; i < 3; i++) {
      millis *= 10; // ".5" is 500 ms
    }
    return millis;
  }

  /**
   * The decimal number of {@code length} ASCII digits at {@code from}; -1 if one is not a digit.
   */
  private static int digits(CharSequence text, int from, int length) {
    int value = 0;
    for (int i = from; i < from + length; i++) {
      char c = text.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      value = value * 10 + (c - '0');
    }
    return value;
  }
}
