package dev.berth.webhook.dra.cel;

import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A semantic version ({@code 1.2.3}, {@code 1.2.3-rc.1}) as a CEL value: a DRA device's {@code
 * version} attribute, and {@code semver("...")}. Ordered by semantic versioning's precedence (a
 * pre-release before its release; build metadata ignored).
 */
public final class CelSemver implements Comparable<CelSemver> {
  private static final Pattern FORM =
      Pattern.compile(
          "(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)"
              + "(?:-([0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*))?(?:\\+[0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*)?");

  private final long major;
  private final long minor;
  private final long patch;
  private final List<String> preRelease;

  private CelSemver(long major, long minor, long patch, List<String> preRelease) {
    this.major = major;
    this.minor = minor;
    this.patch = patch;
    this.preRelease = preRelease;
  }

  /** The version {@code text} says, or empty when it is not one. */
  public static Optional<CelSemver> parse(String text) {
    Matcher m = FORM.matcher(text == null ? "" : text);
    if (!m.matches()) {
      return Optional.empty();
    }
    try {
      return Optional.of(
          new CelSemver(
              Long.parseLong(m.group(1)),
              Long.parseLong(m.group(2)),
              Long.parseLong(m.group(3)),
              m.group(4) == null ? List.of() : List.of(m.group(4).split("\\."))));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  static CelSemver of(String text) {
    return parse(text)
        .orElseThrow(() -> new IllegalArgumentException("invalid semver: \"" + text + "\""));
  }

  long major() {
    return major;
  }

  long minor() {
    return minor;
  }

  long patch() {
    return patch;
  }

  @Override
  public int compareTo(CelSemver o) {
    int c = Long.compare(major, o.major);
    c = c != 0 ? c : Long.compare(minor, o.minor);
    c = c != 0 ? c : Long.compare(patch, o.patch);
    if (c != 0 || preRelease.equals(o.preRelease)) {
      return c;
    }
    if (preRelease.isEmpty() || o.preRelease.isEmpty()) {
      return preRelease.isEmpty() ? 1 : -1;
    }
    for (int i = 0; i < Math.min(preRelease.size(), o.preRelease.size()); i++) {
      int part = comparePart(preRelease.get(i), o.preRelease.get(i));
      if (part != 0) {
        return part;
      }
    }
    return Integer.compare(preRelease.size(), o.preRelease.size());
  }

  /** Numeric identifiers by value and before alphanumeric ones, which compare as text. */
  private static int comparePart(String a, String b) {
    boolean na = a.chars().allMatch(Character::isDigit);
    boolean nb = b.chars().allMatch(Character::isDigit);
    if (na && nb) {
      return new java.math.BigInteger(a).compareTo(new java.math.BigInteger(b));
    }
    if (na != nb) {
      return na ? -1 : 1;
    }
    return a.compareTo(b);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CelSemver v && compareTo(v) == 0;
  }

  @Override
  public int hashCode() {
    return java.util.Objects.hash(major, minor, patch, preRelease);
  }

  @Override
  public String toString() {
    return major
        + "."
        + minor
        + "."
        + patch
        + (preRelease.isEmpty() ? "" : "-" + String.join(".", preRelease));
  }
}
