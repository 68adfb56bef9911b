package dev.berth.kubectl;

import java.math.BigDecimal;

/** Kubernetes quantities ("500m", "16Gi", "2") as exact decimals, and back for display. */
final class Quantities {
  private Quantities() {}

  static BigDecimal parse(String q) {
    if (q == null || q.isBlank()) {
      return BigDecimal.ZERO;
    }
    String[][] suffixes = {
      {"Ki", "1024"},
      {"Mi", "1048576"},
      {"Gi", "1073741824"},
      {"Ti", "1099511627776"},
      {"Pi", "1125899906842624"},
      {"m", "0.001"},
      {"k", "1000"},
      {"M", "1000000"},
      {"G", "1000000000"},
      {"T", "1000000000000"}
    };
    for (String[] s : suffixes) {
      if (q.endsWith(s[0])) {
        return new BigDecimal(q.substring(0, q.length() - s[0].length()))
            .multiply(new BigDecimal(s[1]));
      }
    }
    return new BigDecimal(q);
  }

  /** As a person reads it: "1.5", "500m", "16Gi" (binary suffix when it divides exactly). */
  static String format(BigDecimal v) {
    if (v.signum() == 0) {
      return "0";
    }
    String[] bin = {"Pi", "Ti", "Gi", "Mi", "Ki"};
    BigDecimal unit = new BigDecimal("1125899906842624");
    for (String s : bin) {
      if (v.abs().compareTo(unit) >= 0 && v.remainder(unit).signum() == 0) {
        return v.divide(unit).toBigInteger() + s;
      }
      unit = unit.divide(BigDecimal.valueOf(1024));
    }
    boolean fraction = v.stripTrailingZeros().scale() > 0;
    if (fraction && v.abs().compareTo(BigDecimal.ONE) < 0) {
      return v.movePointRight(3).stripTrailingZeros().toPlainString() + "m";
    }
    return v.stripTrailingZeros().toPlainString();
  }
}
