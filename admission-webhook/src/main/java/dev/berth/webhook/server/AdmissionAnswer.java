package dev.berth.webhook.server;

import dev.berth.webhook.validation.FieldError;
import java.util.List;

/** A handler's decision, before it is written as an AdmissionReview response. */
public sealed interface AdmissionAnswer {

  /** Allowed, optionally with a JSON Patch (RFC 6902) to apply. */
  record Allow(String jsonPatch) implements AdmissionAnswer {}

  /** Refused because fields are invalid: becomes a 422 Invalid status with one cause per error. */
  record Invalid(List<FieldError> errors) implements AdmissionAnswer {}

  /** Refused without a field to blame (an unreadable object, an internal error). */
  record Refuse(int code, String reason, String message) implements AdmissionAnswer {}

  AdmissionAnswer ALLOW = new Allow(null);

  static AdmissionAnswer of(List<FieldError> errors) {
    return errors.isEmpty() ? ALLOW : new Invalid(errors);
  }
}
