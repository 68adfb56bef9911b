package dev.berth.webhook.validation;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigDecimal;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Reads Kubernetes quantities without throwing: a quantity that does not parse is a field error.
 */
final class Quantities {
  private Quantities() {}

  /** The numeric value, or empty when {@code q} is not a valid quantity. */
  static Optional<BigDecimal> value(Quantity q) {
    if (q == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(Quantity.getAmountInBytes(q));
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }

  /** Adds an error when {@code q} is present and not a non-negative quantity. */
  static void checkNonNegative(Quantity q, FieldPath path, Errors errors) {
    if (q == null) {
      return;
    }
    Optional<BigDecimal> v = value(q);
    if (v.isEmpty()) {
      errors.add(
          FieldError.invalid(path, q.toString(), "must be a quantity such as 8, 500m or 16Gi"));
    } else if (v.get().signum() < 0) {
      errors.add(FieldError.invalid(path, q.toString(), "must be greater than or equal to 0"));
    }
  }

  /**
   * Equal requests and limits ({@code resources} of two containers), quantities compared by value:
   * the API server writes a Job's in canonical form ({@code 0.5} becomes {@code 500m}), a custom
   * resource's as they were written.
   */
  static boolean sameRequests(JsonNode a, JsonNode b) {
    return sameAmounts(a.path("requests"), b.path("requests"))
        && sameAmounts(a.path("limits"), b.path("limits"));
  }

  private static boolean sameAmounts(JsonNode a, JsonNode b) {
    Set<String> names = new TreeSet<>();
    a.fieldNames().forEachRemaining(names::add);
    b.fieldNames().forEachRemaining(names::add);
    for (String name : names) {
      if (!a.has(name) || !b.has(name)) {
        return false;
      }
      Optional<BigDecimal> x = value(new Quantity(a.path(name).asText()));
      Optional<BigDecimal> y = value(new Quantity(b.path(name).asText()));
      if (x.isEmpty() || y.isEmpty() || x.get().compareTo(y.get()) != 0) {
        return false;
      }
    }
    return true;
  }
}
