package dev.berth.engine.quota;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Kubernetes quantities as exact longs in canonical units: {@code cpu} in millicores, every other
 * resource (memory and storage in bytes, GPUs, pods) in whole base units, a fractional remainder
 * rounded up as Kubernetes does for {@code Value()}. Parsing uses BigDecimal, so nothing is ever
 * approximated by floating point.
 */
public final class Quantity {
  private static final Pattern QUANTITY =
      Pattern.compile("^([+-]?)([0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)([a-zA-Z]*|[eE][+-]?[0-9]+)$");
  private static final String[] BINARY = {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};

  private Quantity() {}

  /** Whether the resource is counted in milli-units (only cpu). */
  public static boolean isMilli(String resource) {
    return "cpu".equals(resource);
  }

  /** Parses "500m", "2", "16Gi", "1.5", "100M", "1e3" into canonical units of the resource. */
  public static long parse(String resource, String text) {
    if (text == null) {
      throw new IllegalArgumentException("quantity of " + resource + " is missing");
    }
    Matcher m = QUANTITY.matcher(text.trim());
    if (!m.matches()) {
      throw new IllegalArgumentException("invalid quantity \"" + text + "\" for " + resource);
    }
    BigDecimal value = new BigDecimal(m.group(2));
    if ("-".equals(m.group(1))) {
      value = value.negate();
    }
    value = value.multiply(multiplier(m.group(3), text));
    if (isMilli(resource)) {
      value = value.movePointRight(3);
    }
    try {
      return value.setScale(0, RoundingMode.CEILING).longValueExact();
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException(
          "quantity \"" + text + "\" for " + resource + " is too large", e);
    }
  }

  private static BigDecimal multiplier(String suffix, String text) {
    switch (suffix) {
      case "":
        return BigDecimal.ONE;
      case "n":
        return BigDecimal.ONE.movePointLeft(9);
      case "u":
        return BigDecimal.ONE.movePointLeft(6);
      case "m":
        return BigDecimal.ONE.movePointLeft(3);
      case "k":
        return BigDecimal.ONE.movePointRight(3);
      case "M":
        return BigDecimal.ONE.movePointRight(6);
      case "G":
        return BigDecimal.ONE.movePointRight(9);
      case "T":
        return BigDecimal.ONE.movePointRight(12);
      case "P":
        return BigDecimal.ONE.movePointRight(15);
      case "E":
        return BigDecimal.ONE.movePointRight(18);
      default:
        break;
    }
    for (int i = 0; i < BINARY.length; i++) {
      if (BINARY[i].equals(suffix)) {
        return BigDecimal.valueOf(2).pow(10 * (i + 1));
      }
    }
    if (suffix.length() > 1 && (suffix.charAt(0) == 'e' || suffix.charAt(0) == 'E')) {
      int exponent;
      try {
        exponent = Integer.parseInt(suffix.substring(1));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("invalid quantity \"" + text + "\"", e);
      }
      if (Math.abs(exponent) > 40) {
        throw new IllegalArgumentException("quantity \"" + text + "\" is out of range");
      }
      return BigDecimal.ONE.movePointRight(exponent);
    }
    throw new IllegalArgumentException(
        "invalid quantity suffix \"" + suffix + "\" in \"" + text + "\"");
  }

  /** Formats canonical units back into a human Kubernetes quantity ("500m", "2", "16Gi"). */
  public static String format(String resource, long canonical) {
    if (isMilli(resource)) {
      return canonical % 1000 == 0 ? Long.toString(canonical / 1000) : canonical + "m";
    }
    if (isBytes(resource) && canonical != 0) {
      for (int i = BINARY.length; i >= 1; i--) {
        long unit = 1L << (10 * i);
        if (canonical % unit == 0) {
          return canonical / unit + BINARY[i - 1];
        }
      }
    }
    return Long.toString(canonical);
  }

  private static boolean isBytes(String resource) {
    return resource.equals("memory")
        || resource.equals("ephemeral-storage")
        || resource.startsWith("hugepages-")
        || resource.endsWith("/memory");
  }
}
