package dev.berth.webhook.validation;

import dev.berth.api.v1beta1.FairSharing;

/** fairSharing.weight: a non-negative quantity (0 means never favoured while borrowing). */
final class FairSharingValidator {
  private FairSharingValidator() {}

  static void validate(FairSharing fairSharing, FieldPath path, Errors errors) {
    if (fairSharing != null) {
      Quantities.checkNonNegative(fairSharing.weight, path.child("weight"), errors);
    }
  }
}
