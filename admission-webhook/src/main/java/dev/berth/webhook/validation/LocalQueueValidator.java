package dev.berth.webhook.validation;

import dev.berth.api.v1beta1.LocalQueue;
import dev.berth.api.v1beta1.LocalQueueSpec;
import java.util.List;
import java.util.Objects;

/**
 * A LocalQueue. Naming a ClusterQueue that does not exist (yet) is deliberately allowed: admins
 * create objects in any order, and the operator reports the queue inactive with a reason.
 */
public final class LocalQueueValidator {
  private LocalQueueValidator() {}

  public static List<FieldError> validate(LocalQueue lq) {
    Errors errors = new Errors();
    LocalQueueSpec spec = lq.getSpec();
    FieldPath sp = FieldPath.root("spec");
    if (spec == null || spec.clusterQueue == null || spec.clusterQueue.isEmpty()) {
      errors.add(FieldError.required(sp.child("clusterQueue"), "the ClusterQueue is required"));
      return errors.toList();
    }
    errors.dnsSubdomain(sp.child("clusterQueue"), spec.clusterQueue);
    // The weight divides its usage under admission fair sharing, counted in thousandths as a
    // ClusterQueue's is.
    FairSharingValidator.validateCounted(spec.fairSharing, sp.child("fairSharing"), errors);
    return errors.toList();
  }

  public static List<FieldError> validateUpdate(LocalQueue old, LocalQueue lq) {
    Errors errors = new Errors();
    errors.addAll(validate(lq));
    String before = old.getSpec() == null ? null : old.getSpec().clusterQueue;
    String after = lq.getSpec() == null ? null : lq.getSpec().clusterQueue;
    if (!Objects.equals(before, after)) {
      errors.add(
          FieldError.invalid(
              FieldPath.root("spec").child("clusterQueue"),
              after,
              "field is immutable: clusterQueue cannot change; create a new LocalQueue instead"));
    }
    return errors.toList();
  }
}
