package dev.berth.webhook.validation;

import dev.berth.api.v1beta1.WorkloadPriorityClass;
import java.util.List;

/**
 * A WorkloadPriorityClass. Its value may change: a workload's priority is copied when it is
 * created, so a change affects new workloads only.
 */
public final class WorkloadPriorityClassValidator {
  static final int MAX_DESCRIPTION = 2048;

  private WorkloadPriorityClassValidator() {}

  public static List<FieldError> validate(WorkloadPriorityClass wpc) {
    Errors errors = new Errors();
    if (wpc.getValue() == null) {
      errors.add(FieldError.required(FieldPath.root("value"), "a priority value is required"));
    }
    String description = wpc.getDescription();
    if (description != null && description.length() > MAX_DESCRIPTION) {
      errors.add(
          FieldError.invalid(
              FieldPath.root("description"),
              description.length() + " characters",
              "must be no more than " + MAX_DESCRIPTION + " characters"));
    }
    return errors.toList();
  }
}
