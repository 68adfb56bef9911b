package dev.berth.webhook.validation;

import dev.berth.api.v1beta1.Berth;
import dev.berth.api.v1beta1.ProvisioningRequestConfig;
import dev.berth.api.v1beta1.ProvisioningRequestConfigSpec;
import dev.berth.api.v1beta1.ProvisioningRequestConfigSpec.RetryStrategy;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A ProvisioningRequestConfig: a provisioning class the autoscaler's ProvisioningRequest accepts,
 * parameters within the ProvisioningRequest's own bounds (100, values of 255 characters), resource
 * names for managedResources, and a retry strategy whose base does not exceed its max.
 */
public final class ProvisioningRequestConfigValidator {
  static final int MAX_PARAMETERS = 100;
  static final int MAX_PARAMETER_VALUE = 255;
  static final int MAX_MANAGED_RESOURCES = 100;
  private static final Pattern RESOURCE = Pattern.compile(Berth.RESOURCE_NAME);

  /** The ProvisioningRequest's parameter keys are names ("ValidUntilSeconds"). */
  private static final Pattern PARAMETER_KEY = Pattern.compile("^[A-Za-z]([A-Za-z0-9._-]*)$");

  private ProvisioningRequestConfigValidator() {}

  public static List<FieldError> validate(ProvisioningRequestConfig config) {
    Errors errors = new Errors();
    FieldPath sp = FieldPath.root("spec");
    ProvisioningRequestConfigSpec spec = config.getSpec();
    if (spec == null) {
      errors.add(FieldError.required(sp, "a ProvisioningRequestConfig needs a spec"));
      return errors.toList();
    }
    FieldPath cp = sp.child("provisioningClassName");
    if (spec.provisioningClassName == null || spec.provisioningClassName.isEmpty()) {
      errors.add(
          FieldError.required(
              cp,
              "the autoscaler's provisioning class, e.g."
                  + " check-capacity.autoscaling.x-k8s.io"));
    } else {
      errors.dnsSubdomain(cp, spec.provisioningClassName);
    }
    parameters(spec.parameters, sp.child("parameters"), errors);
    managedResources(spec.managedResources, sp.child("managedResources"), errors);
    retryStrategy(spec.retryStrategy, sp.child("retryStrategy"), errors);
    return errors.toList();
  }

  private static void parameters(Map<String, String> parameters, FieldPath path, Errors errors) {
    if (parameters == null) {
      return;
    }
    if (parameters.size() > MAX_PARAMETERS) {
      errors.add(FieldError.tooMany(path, parameters.size(), MAX_PARAMETERS));
    }
    for (Map.Entry<String, String> e : parameters.entrySet()) {
      FieldPath kp = path.key(e.getKey());
      if (!PARAMETER_KEY.matcher(e.getKey()).matches() || e.getKey().length() > 253) {
        errors.add(
            FieldError.invalid(
                kp,
                e.getKey(),
                "a parameter's name starts with a letter"
                    + " and has letters, digits, '.', '_' or '-' (at most 253 characters)"));
      }
      if (e.getValue() == null) {
        errors.add(FieldError.required(kp, "a parameter needs a value"));
      } else if (e.getValue().length() > MAX_PARAMETER_VALUE) {
        errors.add(
            FieldError.invalid(
                kp,
                e.getValue().length() + " characters",
                "a parameter's value is at most " + MAX_PARAMETER_VALUE + " characters"));
      }
    }
  }

  private static void managedResources(List<String> resources, FieldPath path, Errors errors) {
    if (resources == null) {
      return;
    }
    if (resources.size() > MAX_MANAGED_RESOURCES) {
      errors.add(FieldError.tooMany(path, resources.size(), MAX_MANAGED_RESOURCES));
    }
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < resources.size(); i++) {
      String r = resources.get(i);
      FieldPath rp = path.index(i);
      if (r == null || r.length() > 316 || !RESOURCE.matcher(r).matches()) {
        errors.add(FieldError.invalid(rp, r, "must be a resource name such as nvidia.com/gpu"));
      } else if (!seen.add(r)) {
        errors.add(FieldError.duplicate(rp, r));
      }
    }
  }

  private static void retryStrategy(RetryStrategy retry, FieldPath path, Errors errors) {
    if (retry == null) {
      return;
    }
    if (retry.backoffLimitCount != null && retry.backoffLimitCount < 0) {
      errors.add(
          FieldError.invalid(
              path.child("backoffLimitCount"),
              retry.backoffLimitCount,
              "must be 0 (no retry) or more"));
    }
    // 0 is Kueue's "retry at once" and stays accepted; only a negative delay means nothing.
    notNegative(retry.backoffBaseSeconds, path.child("backoffBaseSeconds"), errors);
    notNegative(retry.backoffMaxSeconds, path.child("backoffMaxSeconds"), errors);
    int base =
        retry.backoffBaseSeconds == null
            ? RetryStrategy.DEFAULT_BASE_SECONDS
            : retry.backoffBaseSeconds;
    int max =
        retry.backoffMaxSeconds == null
            ? RetryStrategy.DEFAULT_MAX_SECONDS
            : retry.backoffMaxSeconds;
    if (base > max) {
      errors.add(
          FieldError.invalid(
              path.child("backoffMaxSeconds"),
              max,
              "must be at least backoffBaseSeconds (" + base + ")"));
    }
  }

  private static void notNegative(Integer seconds, FieldPath path, Errors errors) {
    if (seconds != null && seconds < 0) {
      errors.add(FieldError.invalid(path, seconds, "must be 0 (retry at once) or more seconds"));
    }
  }
}
