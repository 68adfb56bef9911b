package dev.berth.operator.config;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One mapping of the configuration document, read field by field with its path: every value read is
 * checked here, a wrong one is noted (with its path, and the environment variable it came from) and
 * its default returned so that one pass reports every mistake, and a field nobody read is an
 * unknown field.
 */
final class Fields {
  private final JsonNode node;
  private final String path;
  private final List<String> errors;

  /** Path → the environment variable whose value replaced the file's there. */
  private final Map<String, String> sources;

  private final Set<String> read = new HashSet<>();

  Fields(JsonNode node, String path, List<String> errors, Map<String, String> sources) {
    this.node = node;
    this.path = path;
    this.errors = errors;
    this.sources = sources;
  }

  /** The mapping under {@code name}; an empty one when absent. */
  Fields section(String name) {
    JsonNode value = value(name);
    if (value != null && !value.isObject()) {
      refuse(name, "must be a mapping, got " + shown(value));
      value = null;
    }
    return new Fields(value, pathOf(name), errors, sources);
  }

  /**
   * The mappings of the list under {@code name}, each with its path; none when absent. An item that
   * is not a mapping is refused and left out.
   */
  List<Fields> sections(String name) {
    JsonNode value = value(name);
    if (value == null) {
      return List.of();
    }
    if (!value.isArray()) {
      refuse(name, "must be a list, got " + shown(value));
      return List.of();
    }
    List<Fields> items = new ArrayList<>();
    for (int i = 0; i < value.size(); i++) {
      JsonNode item = value.get(i);
      String at = name + "[" + i + "]";
      if (!item.isObject()) {
        refuse(at, "must be a mapping, got " + shown(item));
      } else {
        items.add(new Fields(item, pathOf(at), errors, sources));
      }
    }
    return items;
  }

  /** The value of {@code name} (null when absent or null), marked as known. */
  JsonNode value(String name) {
    read.add(name);
    JsonNode value = node == null ? null : node.get(name);
    return value == null || value.isNull() ? null : value;
  }

  boolean bool(String name, boolean otherwise) {
    JsonNode value = value(name);
    if (value == null) {
      return otherwise;
    }
    if (value.isBoolean()) {
      return value.booleanValue();
    }
    String text = value.isTextual() ? value.textValue().trim() : "";
    if (text.equalsIgnoreCase("true") || text.equalsIgnoreCase("false")) {
      return Boolean.parseBoolean(text);
    }
    refuse(name, "must be true or false, got " + shown(value));
    return otherwise;
  }

  /** A whole number from {@code min} to {@code max}. */
  long whole(String name, long otherwise, long min, long max) {
    JsonNode value = value(name);
    if (value == null) {
      return otherwise;
    }
    Long n = null;
    if (value.isIntegralNumber() && value.canConvertToLong()) {
      n = value.longValue();
    } else if (value.isTextual()) {
      try {
        n = Long.parseLong(value.textValue().trim());
      } catch (NumberFormatException e) {
        n = null;
      }
    }
    if (n == null) {
      refuse(name, "must be a whole number, got " + shown(value));
      return otherwise;
    }
    if (n < min || n > max) {
      refuse(name, range(min, max) + ", got " + n);
      return otherwise;
    }
    return n;
  }

  /** A whole number of at least {@code min}, or null when absent. */
  Integer optionalWhole(String name, int min) {
    if (value(name) == null) {
      return null;
    }
    return (int) whole(name, min, min, Integer.MAX_VALUE);
  }

  /** A port: 0 (any free one) to 65535. */
  int port(String name, int otherwise) {
    return (int) whole(name, otherwise, 0, 65535);
  }

  /** A finite number greater than 0. */
  double positive(String name, double otherwise) {
    JsonNode value = value(name);
    if (value == null) {
      return otherwise;
    }
    Double n = null;
    if (value.isNumber()) {
      n = value.doubleValue();
    } else if (value.isTextual()) {
      try {
        n = Double.parseDouble(value.textValue().trim());
      } catch (NumberFormatException e) {
        n = null;
      }
    }
    if (n == null || n.isNaN()) {
      refuse(name, "must be a number, got " + shown(value));
      return otherwise;
    }
    if (!(n > 0) || n.isInfinite()) {
      refuse(name, "must be > 0, got " + value.asText());
      return otherwise;
    }
    return n;
  }

  /** A string; blank is refused unless {@code blankAllowed}. */
  String text(String name, String otherwise, boolean blankAllowed) {
    JsonNode value = value(name);
    if (value == null) {
      return otherwise;
    }
    if (!value.isTextual()) {
      refuse(name, "must be a string, got " + shown(value));
      return otherwise;
    }
    String text = value.textValue().trim();
    if (text.isEmpty() && !blankAllowed) {
      refuse(name, "must not be empty");
      return otherwise;
    }
    return text;
  }

  /** A duration written as Kueue's are ({@link Durations}); {@code otherwise} may be null. */
  Duration duration(String name, Duration otherwise) {
    JsonNode value = value(name);
    if (value == null) {
      return otherwise;
    }
    Duration d = value.isTextual() ? Durations.parse(value.textValue().trim()) : null;
    if (d == null) {
      refuse(name, "must be a duration such as 90s, 5m or 1h30m, got " + shown(value));
      return otherwise;
    }
    return d;
  }

  /** A list of non-empty strings. */
  List<String> texts(String name, List<String> otherwise) {
    JsonNode value = value(name);
    if (value == null) {
      return otherwise;
    }
    if (!value.isArray()) {
      refuse(name, "must be a list, got " + shown(value));
      return otherwise;
    }
    List<String> texts = new ArrayList<>();
    for (int i = 0; i < value.size(); i++) {
      JsonNode item = value.get(i);
      if (!item.isTextual() || item.textValue().isBlank()) {
        refuse(name + "[" + i + "]", "must be a non-empty string, got " + shown(item));
      } else {
        texts.add(item.textValue().trim());
      }
    }
    return texts;
  }

  /** Notes that the value at {@code name} (a field, or {@code field[i]}) is wrong. */
  void refuse(String name, String message) {
    String at = pathOf(name);
    String field = name.replaceAll("\\[\\d+]$", "");
    String variable = sources.get(pathOf(field));
    errors.add(at + (variable == null ? "" : " (" + variable + ")") + ": " + message);
  }

  String pathOf(String name) {
    return path.isEmpty() ? name : path + "." + name;
  }

  /** Notes every field of this mapping that nobody read. */
  void refuseUnknownFields() {
    if (node == null) {
      return;
    }
    for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!read.contains(name)) {
        errors.add(pathOf(name) + ": unknown field");
      }
    }
  }

  private static String range(long min, long max) {
    if (max == Long.MAX_VALUE || max == Integer.MAX_VALUE) {
      return "must be >= " + min;
    }
    return "must be from " + min + " to " + max;
  }

  private static String shown(JsonNode value) {
    if (value.isTextual()) {
      return "\"" + value.textValue() + "\"";
    }
    if (value.isContainerNode()) {
      return value.isArray() ? "a list" : "a mapping";
    }
    return value.asText();
  }
}
