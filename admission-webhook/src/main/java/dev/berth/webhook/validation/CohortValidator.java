package dev.berth.webhook.validation;

import dev.berth.api.v1beta1.Cohort;
import dev.berth.api.v1beta1.CohortSpec;
import java.util.List;

/**
 * A Cohort on its own. Cycles through other cohorts are a cross-object matter: they are allowed
 * here and the operator marks the whole tree inactive; only the trivial self-cycle is refused.
 */
public final class CohortValidator {
  private CohortValidator() {}

  public static List<FieldError> validate(Cohort cohort) {
    Errors errors = new Errors();
    CohortSpec spec = cohort.getSpec();
    if (spec == null) {
      return errors.toList();
    }
    FieldPath sp = FieldPath.root("spec");
    errors.dnsSubdomain(sp.child("parentName"), spec.parentName);
    String name = cohort.getMetadata() == null ? null : cohort.getMetadata().getName();
    if (spec.parentName != null && spec.parentName.equals(name)) {
      errors.add(
          FieldError.invalid(
              sp.child("parentName"), spec.parentName, "a cohort cannot be its own parent"));
    }
    ResourceGroupsValidator.validate(
        spec.resourceGroups,
        sp.child("resourceGroups"),
        spec.parentName != null,
        "parentName",
        errors);
    FairSharingValidator.validateCounted(spec.fairSharing, sp.child("fairSharing"), errors);
    return errors.toList();
  }
}
