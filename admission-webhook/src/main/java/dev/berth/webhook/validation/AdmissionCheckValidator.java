package dev.berth.webhook.validation;

import dev.berth.api.v1beta1.AdmissionCheck;
import dev.berth.api.v1beta1.AdmissionCheckSpec;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * An AdmissionCheck: a controller name of at most 253 characters (free-form, as Kueue's: it is only
 * compared with the name a controller looks for), optional parameters naming the check's
 * configuration object in full; the controller cannot change once created (its workloads' states
 * were written by it).
 */
public final class AdmissionCheckValidator {
  private static final Pattern KIND = Pattern.compile("^[A-Z]([-A-Za-z0-9]*[A-Za-z0-9])?$");

  private AdmissionCheckValidator() {}

  public static List<FieldError> validate(AdmissionCheck check) {
    Errors errors = new Errors();
    FieldPath spec = FieldPath.root("spec");
    AdmissionCheckSpec s = check.getSpec();
    FieldPath cp = spec.child("controllerName");
    if (s == null || s.controllerName == null || s.controllerName.isEmpty()) {
      errors.add(FieldError.required(cp, "the controller that runs the check"));
      return errors.toList();
    }
    if (s.controllerName.length() > 253) {
      errors.add(
          FieldError.invalid(
              cp,
              s.controllerName,
              "must be at most 253 characters, e.g. berth.dev/provisioning-request"));
    }
    if (s.parameters != null) {
      FieldPath pp = spec.child("parameters");
      AdmissionCheckSpec.Parameters p = s.parameters;
      if (p.apiGroup == null || p.apiGroup.isEmpty()) {
        errors.add(FieldError.required(pp.child("apiGroup"), "the API group of the parameters"));
      } else {
        errors.dnsSubdomain(pp.child("apiGroup"), p.apiGroup);
      }
      if (p.kind == null || p.kind.isEmpty()) {
        errors.add(FieldError.required(pp.child("kind"), "the kind of the parameters"));
      } else if (p.kind.length() > 63 || !KIND.matcher(p.kind).matches()) {
        errors.add(
            FieldError.invalid(
                pp.child("kind"),
                p.kind,
                "must be a kind name: an upper-case letter, then letters, digits or '-'"));
      }
      if (p.name == null || p.name.isEmpty()) {
        errors.add(FieldError.required(pp.child("name"), "the name of the parameters object"));
      } else {
        errors.dnsSubdomain(pp.child("name"), p.name);
      }
    }
    return errors.toList();
  }

  public static List<FieldError> validateUpdate(AdmissionCheck old, AdmissionCheck check) {
    Errors errors = new Errors();
    errors.addAll(validate(check));
    String before = old.getSpec() == null ? null : old.getSpec().controllerName;
    String after = check.getSpec() == null ? null : check.getSpec().controllerName;
    if (before != null && after != null && !Objects.equals(before, after)) {
      errors.add(
          FieldError.invalid(
              FieldPath.root("spec").child("controllerName"), after, "field is immutable"));
    }
    return errors.toList();
  }
}
