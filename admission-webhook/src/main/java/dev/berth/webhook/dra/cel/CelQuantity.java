package dev.berth.webhook.dra.cel;

import java.math.BigDecimal;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Kubernetes quantity ({@code 80Gi}, {@code 500m}, {@code 1e3}) as a CEL value, compared by
 * amount as Kubernetes' CEL quantity library compares it: {@code quantity("1Gi") ==
 * quantity("1024Mi")}.
 */
public final class CelQuantity implements Comparable<CelQuantity> {
  private static final Pattern FORM =
      Pattern.compile(
          "([+-]?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+))(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?[0-9]+)?");

  private static final Map<String, BigDecimal> SUFFIXES =
      Map.ofEntries(
          Map.entry("", BigDecimal.ONE),
          Map.entry("n", new BigDecimal("1e-9")),
          Map.entry("u", new BigDecimal("1e-6")),
          Map.entry("m", new BigDecimal("1e-3")),
          Map.entry("k", new BigDecimal("1e3")),
          Map.entry("M", new BigDecimal("1e6")),
          Map.entry("G", new BigDecimal("1e9")),
          Map.entry("T", new BigDecimal("1e12")),
          Map.entry("P", new BigDecimal("1e15")),
          Map.entry("E", new BigDecimal("1e18")),
          Map.entry("Ki", BigDecimal.valueOf(1L << 10)),
          Map.entry("Mi", BigDecimal.valueOf(1L << 20)),
          Map.entry("Gi", BigDecimal.valueOf(1L << 30)),
          Map.entry("Ti", BigDecimal.valueOf(1L << 40)),
          Map.entry("Pi", BigDecimal.valueOf(1L << 50)),
          Map.entry("Ei", BigDecimal.valueOf(1L << 60)));

  private final BigDecimal amount;

  private CelQuantity(BigDecimal amount) {
    this.amount = amount;
  }

  public static CelQuantity of(BigDecimal amount) {
    return new CelQuantity(amount);
  }

  /** The quantity {@code text} says, or empty when it is not one. */
  public static Optional<CelQuantity> parse(String text) {
    Matcher m = FORM.matcher(text == null ? "" : text);
    if (!m.matches()) {
      return Optional.empty();
    }
    String suffix = m.group(2) == null ? "" : m.group(2);
    BigDecimal number = new BigDecimal(m.group(1));
    BigDecimal scale =
        suffix.startsWith("e") || suffix.startsWith("E")
            ? BigDecimal.ONE.scaleByPowerOfTen(Integer.parseInt(suffix.substring(1)))
            : SUFFIXES.get(suffix);
    return Optional.of(new CelQuantity(number.multiply(scale)));
  }

  /** {@code quantity("...")}: an error (no quantity) when the text is not one. */
  static CelQuantity of(String text) {
    return parse(text)
        .orElseThrow(() -> new IllegalArgumentException("invalid quantity: \"" + text + "\""));
  }

  public BigDecimal amount() {
    return amount;
  }

  @Override
  public int compareTo(CelQuantity other) {
    return amount.compareTo(other.amount);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CelQuantity q && amount.compareTo(q.amount) == 0;
  }

  @Override
  public int hashCode() {
    return amount.signum() == 0 ? 0 : amount.stripTrailingZeros().hashCode();
  }

  @Override
  public String toString() {
    return amount.stripTrailingZeros().toPlainString();
  }
}
