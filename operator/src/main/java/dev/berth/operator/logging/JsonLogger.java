package dev.berth.operator.logging;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.format.DateTimeFormatter;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.AbstractLogger;
import org.slf4j.helpers.MessageFormatter;

/**
 * Writes each event as one JSON object on one line: {@code time} (RFC 3339, UTC, milliseconds),
 * {@code level}, {@code logger}, {@code thread}, {@code message}, and {@code error} (the stack
 * trace) when there is one. A line is written whole, so lines of concurrent threads never mix.
 */
final class JsonLogger extends AbstractLogger {
  private static final JsonFactory JSON = new JsonFactory();

  private final transient int threshold;
  private final transient PrintStream out;
  private final transient Clock clock;

  JsonLogger(String name, int threshold, PrintStream out, Clock clock) {
    this.name = name;
    this.threshold = threshold;
    this.out = out;
    this.clock = clock;
  }

  @Override
  protected String getFullyQualifiedCallerName() {
    return null;
  }

  @Override
  protected void handleNormalizedLoggingCall(
      Level level, Marker marker, String pattern, Object[] arguments, Throwable error) {
    StringWriter line = new StringWriter(160);
    try (JsonGenerator json = JSON.createGenerator(line)) {
      json.writeStartObject();
      json.writeStringField("time", DateTimeFormatter.ISO_INSTANT.format(clock.instant()));
      json.writeStringField("level", level.name());
      json.writeStringField("logger", name);
      json.writeStringField("thread", Thread.currentThread().getName());
      json.writeStringField("message", MessageFormatter.basicArrayFormat(pattern, arguments));
      if (error != null) {
        StringWriter trace = new StringWriter();
        error.printStackTrace(new PrintWriter(trace));
        json.writeStringField("error", trace.toString());
      }
      json.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a StringWriter does not fail
    }
    out.println(line);
  }

  private boolean enabled(Level level) {
    return level.toInt() >= threshold;
  }

  @Override
  public boolean isTraceEnabled() {
    return enabled(Level.TRACE);
  }

  @Override
  public boolean isTraceEnabled(Marker marker) {
    return isTraceEnabled();
  }

  @Override
  public boolean isDebugEnabled() {
    return enabled(Level.DEBUG);
  }

  @Override
  public boolean isDebugEnabled(Marker marker) {
    return isDebugEnabled();
  }

  @Override
  public boolean isInfoEnabled() {
    return enabled(Level.INFO);
  }

  @Override
  public boolean isInfoEnabled(Marker marker) {
    return isInfoEnabled();
  }

  @Override
  public boolean isWarnEnabled() {
    return enabled(Level.WARN);
  }

  @Override
  public boolean isWarnEnabled(Marker marker) {
    return isWarnEnabled();
  }

  @Override
  public boolean isErrorEnabled() {
    return enabled(Level.ERROR);
  }

  @Override
  public boolean isErrorEnabled(Marker marker) {
    return isErrorEnabled();
  }
}
