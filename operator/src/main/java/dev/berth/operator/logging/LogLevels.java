package dev.berth.operator.logging;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Locale;
import java.util.Properties;
import org.slf4j.event.Level;

/**
 * The level of each logger, from the same settings slf4j-simple reads (simplelogger.properties on
 * the class path, then {@code org.slf4j.simpleLogger.*} system properties), so that the text and
 * the JSON log leave out the same lines. A logger without a level of its own takes its nearest
 * parent's ({@code io.fabric8.kubernetes.client.dsl} from {@code io.fabric8}), then the default.
 */
final class LogLevels {
  /** Above every level: the logger is off. */
  static final int OFF = Level.ERROR.toInt() + 10;

  private static final String PREFIX = "org.slf4j.simpleLogger.";
  private static final String PER_LOGGER = PREFIX + "log.";

  private final Properties settings;

  LogLevels(Properties settings) {
    this.settings = settings;
  }

  /** simplelogger.properties from the class path, overridden by system properties. */
  static LogLevels fromClassPath() {
    Properties settings = new Properties();
    try (InputStream in =
        LogLevels.class.getClassLoader().getResourceAsStream("simplelogger.properties")) {
      if (in != null) {
        settings.load(in);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("simplelogger.properties: " + e.getMessage(), e);
    }
    System.getProperties().stringPropertyNames().stream()
        .filter(name -> name.startsWith(PREFIX))
        .forEach(name -> settings.setProperty(name, System.getProperty(name)));
    return new LogLevels(settings);
  }

  /** The least level {@code logger} writes, as {@link Level#toInt()}; {@link #OFF} for none. */
  int threshold(String logger) {
    String name = logger;
    while (true) {
      String level = settings.getProperty(PER_LOGGER + name);
      if (level != null) {
        return parse(PER_LOGGER + name, level);
      }
      int dot = name.lastIndexOf('.');
      if (dot < 0) {
        break;
      }
      name = name.substring(0, dot);
    }
    String fallback = settings.getProperty(PREFIX + "defaultLogLevel", "info");
    return parse(PREFIX + "defaultLogLevel", fallback);
  }

  private static int parse(String key, String value) {
    String level = value.trim().toUpperCase(Locale.ROOT);
    if (level.equals("OFF")) {
      return OFF;
    }
    try {
      return Level.valueOf(level).toInt();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          key + ": expected trace, debug, info, warn, error or off, got '" + value + "'", e);
    }
  }
}
