package dev.berth.operator.logging;

import java.util.Locale;
import java.util.Map;

/**
 * How the operator writes its log: {@code text} (slf4j-simple, one line per event, for a person) or
 * {@code json} (one JSON object per line, for a log pipeline, as Kueue's zap logs are). Read from
 * {@code BERTH_LOG_FORMAT} (chart value {@code logging.format}) before anything logs: SLF4J binds
 * its provider once, at the first logger.
 */
public enum LogFormat {
  TEXT,
  JSON;

  public static final String VARIABLE = "BERTH_LOG_FORMAT";

  /** The format {@code env} asks for; text when unset. */
  public static LogFormat from(Map<String, String> env) {
    String value = env.get(VARIABLE);
    if (value == null || value.isBlank()) {
      return TEXT;
    }
    return switch (value.trim().toLowerCase(Locale.ROOT)) {
      case "text" -> TEXT;
      case "json" -> JSON;
      default ->
          throw new IllegalArgumentException(
              VARIABLE + ": expected text or json, got '" + value + "'");
    };
  }

  /**
   * Makes SLF4J bind this format's provider: text is slf4j-simple, found on the class path as
   * usual; json is {@link JsonLogProvider}, named through {@code slf4j.provider} (it is not
   * registered as a service, so that the class path never holds two providers).
   */
  public void install() {
    if (this == JSON) {
      System.setProperty("slf4j.provider", JsonLogProvider.class.getName());
      // Else SLF4J reports, on standard error and as plain text, that it loads the named one.
      System.getProperties().putIfAbsent("slf4j.internal.verbosity", "WARN");
    }
  }
}
