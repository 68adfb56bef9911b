package dev.berth.operator.config;

import java.util.List;

/**
 * A configuration refused: every field that is wrong, each as {@code path: what it must be, got
 * what}. The operator prints the message and does not start.
 */
public final class ConfigurationException extends IllegalArgumentException {
  private final List<String> errors;

  ConfigurationException(String source, List<String> errors) {
    super("configuration " + source + " refused:\n  " + String.join("\n  ", errors));
    this.errors = List.copyOf(errors);
  }

  /** One line per wrong field, in the order the fields were read. */
  public List<String> errors() {
    return errors;
  }
}
