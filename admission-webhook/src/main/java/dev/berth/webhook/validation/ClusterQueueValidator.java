package dev.berth.webhook.validation;

import dev.berth.api.v1beta1.AdmissionChecksStrategy;
import dev.berth.api.v1beta1.ClusterQueue;
import dev.berth.api.v1beta1.ClusterQueuePreemption;
import dev.berth.api.v1beta1.ClusterQueueSpec;
import dev.berth.api.v1beta1.FlavorFungibility;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** A ClusterQueue on its own: quota shape, limits, selector and policy combinations. */
public final class ClusterQueueValidator {
  private ClusterQueueValidator() {}

  public static List<FieldError> validate(ClusterQueue cq) {
    Errors errors = new Errors();
    ClusterQueueSpec spec = cq.getSpec();
    if (spec == null) {
      return errors.toList();
    }
    FieldPath sp = FieldPath.root("spec");
    errors.dnsSubdomain(sp.child("cohortName"), spec.cohortName);
    ResourceGroupsValidator.validate(
        spec.resourceGroups,
        sp.child("resourceGroups"),
        spec.cohortName != null,
        "cohortName",
        errors);
    LabelSelectorValidator.validate(spec.namespaceSelector, sp.child("namespaceSelector"), errors);
    checkFungibility(spec.flavorFungibility, sp.child("flavorFungibility"), errors);
    checkPreemption(spec.preemption, sp.child("preemption"), errors);
    FairSharingValidator.validateCounted(spec.fairSharing, sp.child("fairSharing"), errors);
    checkAdmissionChecks(spec, sp.child("admissionChecksStrategy"), errors);
    return errors.toList();
  }

  private static void checkFungibility(FlavorFungibility f, FieldPath path, Errors errors) {
    if (f == null || f.preference == null) {
      return;
    }
    // Absent whenCanBorrow defaults to MayStopSearch, absent whenCanPreempt to TryNextFlavor.
    boolean borrowTries = f.whenCanBorrow == FlavorFungibility.Policy.TryNextFlavor;
    boolean preemptTries = f.whenCanPreempt != FlavorFungibility.Policy.MayStopSearch;
    if (!borrowTries || !preemptTries) {
      errors.add(
          FieldError.forbidden(
              path.child("preference"),
              "preference requires whenCanBorrow and whenCanPreempt to be TryNextFlavor"));
    }
  }

  private static void checkPreemption(ClusterQueuePreemption p, FieldPath path, Errors errors) {
    if (p != null && p.minimumRuntimeSeconds != null && p.minimumRuntimeSeconds < 0) {
      errors.add(
          FieldError.invalid(
              path.child("minimumRuntimeSeconds"),
              p.minimumRuntimeSeconds,
              "must be greater than or equal to 0"));
    }
    if (p != null
        && p.borrowBackoffAfterReclaimSeconds != null
        && p.borrowBackoffAfterReclaimSeconds < 0) {
      errors.add(
          FieldError.invalid(
              path.child("borrowBackoffAfterReclaimSeconds"),
              p.borrowBackoffAfterReclaimSeconds,
              "must be greater than or equal to 0"));
    }
    if (p != null && p.checkpointWindowSeconds != null && p.checkpointWindowSeconds < 0) {
      errors.add(
          FieldError.invalid(
              path.child("checkpointWindowSeconds"),
              p.checkpointWindowSeconds,
              "must be greater than or equal to 0"));
    }
    if (p != null && p.maxPreemptions != null) {
      FieldPath max = path.child("maxPreemptions");
      if (p.maxPreemptions.count == null) {
        errors.add(FieldError.required(max.child("count"), "how many preemptions per window"));
      } else if (p.maxPreemptions.count < 0) {
        errors.add(
            FieldError.invalid(
                max.child("count"), p.maxPreemptions.count, "must be greater than or equal to 0"));
      }
      if (p.maxPreemptions.windowSeconds == null) {
        errors.add(FieldError.required(max.child("windowSeconds"), "the window, in seconds"));
      } else if (p.maxPreemptions.windowSeconds < 1) {
        errors.add(
            FieldError.invalid(
                max.child("windowSeconds"),
                p.maxPreemptions.windowSeconds,
                "must be greater than or equal to 1"));
      }
    }
    if (p == null || p.borrowWithinCohort == null) {
      return;
    }
    ClusterQueuePreemption.BorrowWithinCohort.Policy policy = p.borrowWithinCohort.policy;
    boolean borrowPreempts =
        policy != null && policy != ClusterQueuePreemption.BorrowWithinCohort.Policy.Never;
    // reclaimWithinCohort defaults to Never, so leaving it out conflicts the same way.
    boolean reclaimNever =
        p.reclaimWithinCohort == null
            || p.reclaimWithinCohort == ClusterQueuePreemption.ReclaimWithinCohort.Never;
    if (borrowPreempts && reclaimNever) {
      errors.add(
          FieldError.invalid(
              path.child("borrowWithinCohort").child("policy"),
              policy.name(),
              "reclaimWithinCohort=Never and borrowWithinCohort.policy!=Never cannot be combined"));
    }
    if (!borrowPreempts && p.borrowWithinCohort.maxPriorityThreshold != null) {
      errors.add(
          FieldError.forbidden(
              path.child("borrowWithinCohort").child("maxPriorityThreshold"),
              "maxPriorityThreshold is only allowed with policy LowerPriority"));
    }
  }

  private static void checkAdmissionChecks(ClusterQueueSpec spec, FieldPath path, Errors errors) {
    AdmissionChecksStrategy strategy = spec.admissionChecksStrategy;
    if (strategy == null || strategy.admissionChecks == null) {
      return;
    }
    Set<String> flavors = ResourceGroupsValidator.flavorNames(spec.resourceGroups);
    Set<String> names = new HashSet<>();
    for (int i = 0; i < strategy.admissionChecks.size(); i++) {
      AdmissionChecksStrategy.AdmissionCheckRule rule = strategy.admissionChecks.get(i);
      FieldPath rp = path.child("admissionChecks").index(i);
      if (rule == null || rule.name == null || rule.name.isEmpty()) {
        errors.add(FieldError.required(rp.child("name"), "an admission check name is required"));
        continue;
      }
      errors.dnsSubdomain(rp.child("name"), rule.name);
      if (!names.add(rule.name)) {
        errors.add(FieldError.duplicate(rp.child("name"), rule.name));
      }
      if (rule.onFlavors == null) {
        continue;
      }
      Set<String> seen = new HashSet<>();
      for (int f = 0; f < rule.onFlavors.size(); f++) {
        String flavor = rule.onFlavors.get(f);
        FieldPath fp = rp.child("onFlavors").index(f);
        if (flavor != null && !seen.add(flavor)) {
          errors.add(FieldError.duplicate(fp, flavor));
        } else if (!flavors.contains(flavor)) {
          errors.add(
              FieldError.invalid(
                  fp, flavor, "must be a flavor of this ClusterQueue's resourceGroups"));
        }
      }
    }
  }
}
