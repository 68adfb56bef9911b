package dev.berth.webhook.validation;

import dev.berth.api.v1beta1.FairSharing;
import java.math.BigDecimal;

/** fairSharing.weight: a non-negative quantity (0 means never favoured while borrowing). */
final class FairSharingValidator {
  private static final BigDecimal SMALLEST = new BigDecimal("0.001");
  private static final BigDecimal LARGEST = new BigDecimal("1000000");

  private FairSharingValidator() {}

  static void validate(FairSharing fairSharing, FieldPath path, Errors errors) {
    if (fairSharing != null) {
      Quantities.checkNonNegative(fairSharing.weight, path.child("weight"), errors);
    }
  }

  /**
   * The weight of a ClusterQueue, Cohort or LocalQueue, which fair sharing divides shares (or
   * admission fair sharing a LocalQueue's usage) by: besides {@link #validate}, 0 or between 0.001
   * and 1000000. The engine counts weights in thousandths, so a finer weight would be rounded
   * rather than honoured, and a larger one would overflow.
   */
  static void validateCounted(FairSharing fairSharing, FieldPath path, Errors errors) {
    validate(fairSharing, path, errors);
    if (fairSharing == null) {
      return;
    }
    BigDecimal v = Quantities.value(fairSharing.weight).orElse(null);
    if (v == null || v.signum() <= 0) {
      return;
    }
    if (v.compareTo(SMALLEST) < 0 || v.compareTo(LARGEST) > 0) {
      errors.add(
          FieldError.invalid(
              path.child("weight"),
              fairSharing.weight.toString(),
              "must be 0 or between 0.001 and 1000000 (Berth counts weights in thousandths)"));
    } else if (v.stripTrailingZeros().scale() > 3) {
      errors.add(
          FieldError.invalid(
              path.child("weight"),
              fairSharing.weight.toString(),
              "must be a whole number of thousandths, such as 1.5 or 250m"));
    }
  }
}
