package dev.berth.webhook.validation;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import java.math.BigDecimal;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What Berth needs from a pod template to count its quota and place its pods: containers with names
 * and sane requests, and well-formed topology annotations. {@code pods} is counted by Berth itself
 * and may not be requested directly.
 */
final class PodTemplateRules {
  static final String PODS = "pods";

  private PodTemplateRules() {}

  static void validate(PodTemplateSpec template, FieldPath path, Errors errors) {
    validate(template, path, errors, null);
  }

  /** With {@code podCount}, the pods the template runs as one podSet (slices must divide it). */
  static void validate(PodTemplateSpec template, FieldPath path, Errors errors, Integer podCount) {
    TopologyAnnotationRules.validate(
        template.getMetadata(), path.child("metadata").child("annotations"), podCount, errors);
    PodSpec spec = template.getSpec();
    if (spec == null) {
      errors.add(FieldError.required(path.child("spec"), "the pod template needs a spec"));
      return;
    }
    FieldPath sp = path.child("spec");
    if (spec.getContainers() == null || spec.getContainers().isEmpty()) {
      errors.add(FieldError.required(sp.child("containers"), "at least one container is required"));
    }
    Set<String> names = new HashSet<>();
    checkContainers(spec.getInitContainers(), sp.child("initContainers"), names, errors);
    checkContainers(spec.getContainers(), sp.child("containers"), names, errors);
  }

  private static void checkContainers(
      List<Container> containers, FieldPath path, Set<String> names, Errors errors) {
    if (containers == null) {
      return;
    }
    for (int i = 0; i < containers.size(); i++) {
      Container c = containers.get(i);
      FieldPath cp = path.index(i);
      if (c == null) {
        errors.add(FieldError.required(cp, "a container must not be null"));
        continue;
      }
      if (c.getName() == null || c.getName().isEmpty()) {
        errors.add(FieldError.required(cp.child("name"), "a container name is required"));
      } else {
        errors.dnsLabel(cp.child("name"), c.getName());
        if (!names.add(c.getName())) {
          errors.add(FieldError.duplicate(cp.child("name"), c.getName()));
        }
      }
      checkResources(c.getResources(), cp.child("resources"), errors);
    }
  }

  private static void checkResources(ResourceRequirements r, FieldPath path, Errors errors) {
    if (r == null) {
      return;
    }
    Map<String, Quantity> requests = r.getRequests() == null ? Map.of() : r.getRequests();
    Map<String, Quantity> limits = r.getLimits() == null ? Map.of() : r.getLimits();
    checkAmounts(requests, path.child("requests"), errors);
    checkAmounts(limits, path.child("limits"), errors);
    for (Map.Entry<String, Quantity> e : requests.entrySet()) {
      Optional<BigDecimal> request = Quantities.value(e.getValue());
      Optional<BigDecimal> limit = Quantities.value(limits.get(e.getKey()));
      if (request.isPresent() && limit.isPresent() && request.get().compareTo(limit.get()) > 0) {
        errors.add(
            FieldError.invalid(
                path.child("requests").key(e.getKey()),
                e.getValue().toString(),
                "must be less than or equal to "
                    + e.getKey()
                    + " limit of "
                    + limits.get(e.getKey())));
      }
    }
  }

  private static void checkAmounts(Map<String, Quantity> amounts, FieldPath path, Errors errors) {
    for (Map.Entry<String, Quantity> e : amounts.entrySet()) {
      FieldPath rp = path.key(e.getKey());
      String problem = Names.qualifiedNameProblem(e.getKey());
      if (problem != null) {
        errors.add(FieldError.invalid(rp, e.getKey(), "must be a resource name: " + problem));
      }
      if (PODS.equals(e.getKey())) {
        errors.add(
            FieldError.forbidden(
                rp, "pods may not be requested directly; Berth counts one per pod"));
      }
      Quantities.checkNonNegative(e.getValue(), rp, errors);
    }
  }
}
