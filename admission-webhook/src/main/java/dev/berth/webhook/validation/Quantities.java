package dev.berth.webhook.validation;

import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigDecimal;
import java.util.Optional;

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
}
