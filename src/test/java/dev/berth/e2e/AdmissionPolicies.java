package dev.berth.e2e;

import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding;
import io.fabric8.kubernetes.client.utils.Serialization;

/**
 * ValidatingAdmissionPolicies of the real API server that tests put in the way of requests (as a
 * policy engine, or a webhook down with failurePolicy Fail, would), to hold a race open or refuse a
 * write for as long as a test needs.
 */
final class AdmissionPolicies {
  private AdmissionPolicies() {}

  /**
   * A policy {@code name} that refuses, with {@code message}, each request {@code matchConstraints}
   * (the YAML of spec.matchConstraints) selects unless the CEL {@code expression} holds; in force
   * once {@link #binding} is created.
   */
  static ValidatingAdmissionPolicy denying(
      String name, String matchConstraints, String expression, String message) {
    return Serialization.unmarshal(
        """
        apiVersion: admissionregistration.k8s.io/v1
        kind: ValidatingAdmissionPolicy
        metadata:
          name: %s
        spec:
          failurePolicy: Fail
          matchConstraints:
        %s
          validations:
            - expression: "%s"
              message: %s
        """
            .formatted(name, matchConstraints.indent(4).stripTrailing(), expression, message),
        ValidatingAdmissionPolicy.class);
  }

  /** The binding that puts policy {@code policy} in force, denying. */
  static ValidatingAdmissionPolicyBinding binding(String policy) {
    return Serialization.unmarshal(
        """
        apiVersion: admissionregistration.k8s.io/v1
        kind: ValidatingAdmissionPolicyBinding
        metadata:
          name: %s
        spec:
          policyName: %s
          validationActions: [Deny]
        """
            .formatted(policy, policy),
        ValidatingAdmissionPolicyBinding.class);
  }
}
