package dev.berth.webhook.validation;

import dev.berth.api.v1beta1.Budget;
import dev.berth.api.v1beta1.BudgetLimit;
import dev.berth.api.v1beta1.BudgetSpec;
import java.time.DateTimeException;
import java.time.ZoneId;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A Budget on its own: exactly one of localQueue, clusterQueue and costCentre, a time zone the
 * JDK's time-zone database knows, and non-negative hours of distinct, well-formed resources. (The
 * schema says most of this too; the time zone only a validator can check.)
 */
public final class BudgetValidator {
  private static final int MAX_LIMITS = 16;

  private BudgetValidator() {}

  public static List<FieldError> validate(Budget budget) {
    Errors errors = new Errors();
    BudgetSpec spec = budget.getSpec();
    FieldPath sp = FieldPath.root("spec");
    if (spec == null) {
      errors.add(FieldError.required(sp, "a Budget needs a spec"));
      return errors.toList();
    }
    int targets =
        (spec.localQueue != null ? 1 : 0)
            + (spec.clusterQueue != null ? 1 : 0)
            + (spec.costCentre != null ? 1 : 0);
    if (targets != 1) {
      errors.add(
          FieldError.invalid(
              sp,
              targets,
              "exactly one of localQueue, clusterQueue and costCentre must be set, not "
                  + targets));
    }
    if (spec.localQueue != null) {
      FieldPath lq = sp.child("localQueue");
      if (spec.localQueue.namespace == null) {
        errors.add(FieldError.required(lq.child("namespace"), "the LocalQueue's namespace"));
      }
      if (spec.localQueue.name == null) {
        errors.add(FieldError.required(lq.child("name"), "the LocalQueue's name"));
      }
      errors.dnsLabel(lq.child("namespace"), spec.localQueue.namespace);
      errors.dnsSubdomain(lq.child("name"), spec.localQueue.name);
    }
    errors.dnsSubdomain(sp.child("clusterQueue"), spec.clusterQueue);
    errors.labelValue(sp.child("costCentre"), spec.costCentre);
    if (spec.costCentre != null && spec.costCentre.isEmpty()) {
      errors.add(
          FieldError.invalid(
              sp.child("costCentre"), "", "must name a cost centre (\"\" is no cost centre)"));
    }
    if (spec.period == null) {
      errors.add(
          FieldError.notSupported(sp.child("period"), null, List.of("Day", "Week", "Month")));
    }
    timeZone(sp.child("timeZone"), spec.timeZone, errors);
    limits(sp.child("limits"), spec.limits, errors);
    return errors.toList();
  }

  private static void timeZone(FieldPath path, String zone, Errors errors) {
    if (zone == null || zone.isEmpty()) {
      errors.add(
          FieldError.required(
              path,
              "an IANA time zone such as UTC or Europe/Berlin: windows start at its midnight"));
      return;
    }
    try {
      ZoneId.of(zone);
    } catch (DateTimeException e) {
      errors.add(
          FieldError.invalid(
              path, zone, "not a time zone (use an IANA name such as UTC or Europe/Berlin)"));
    }
  }

  private static void limits(FieldPath path, List<BudgetLimit> limits, Errors errors) {
    if (limits == null || limits.isEmpty()) {
      errors.add(FieldError.required(path, "at least one resource's hours"));
      return;
    }
    if (limits.size() > MAX_LIMITS) {
      errors.add(FieldError.tooMany(path, limits.size(), MAX_LIMITS));
    }
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < limits.size(); i++) {
      BudgetLimit l = limits.get(i);
      FieldPath at = path.index(i);
      if (l == null) {
        errors.add(FieldError.required(at, "a resource and its hours"));
        continue;
      }
      if (l.resource == null) {
        errors.add(FieldError.required(at.child("resource"), "a resource name"));
      } else {
        errors.labelKey(at.child("resource"), l.resource);
        if (!seen.add(l.resource)) {
          errors.add(FieldError.duplicate(at.child("resource"), l.resource));
        }
      }
      if (l.hours == null) {
        errors.add(FieldError.required(at.child("hours"), "the resource-hours per window"));
      } else if (!l.hours.matches("[0-9]+(\\.[0-9]+)?") || l.hours.length() > 32) {
        errors.add(
            FieldError.invalid(
                at.child("hours"),
                l.hours,
                "must be a non-negative decimal number of hours such as 20000 or 0.5"));
      }
    }
  }
}
