package dev.berth.webhook.validation;

import dev.berth.api.v1beta1.FlavorQuotas;
import dev.berth.api.v1beta1.ResourceGroup;
import dev.berth.api.v1beta1.ResourceQuota;
import java.math.BigDecimal;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The quota rules a ClusterQueue and a Cohort share: every flavor lists the covered resources in
 * order, a resource and a flavor belong to one group only, quantities are non-negative, limits need
 * somewhere to borrow from, and a queue cannot lend more than it has.
 */
final class ResourceGroupsValidator {
  static final int MAX_GROUPS = 16;
  static final int MAX_ITEMS = 64;

  private ResourceGroupsValidator() {}

  /**
   * @param limitsAllowed whether borrowingLimit/lendingLimit make sense (a cohort or parent is set)
   * @param limitsNeed the field that must be set for limits, named in the message
   */
  static void validate(
      List<ResourceGroup> groups,
      FieldPath path,
      boolean limitsAllowed,
      String limitsNeed,
      Errors errors) {
    if (groups == null) {
      return;
    }
    if (groups.size() > MAX_GROUPS) {
      errors.add(FieldError.tooMany(path, groups.size(), MAX_GROUPS));
    }
    Map<String, Integer> groupOfResource = new HashMap<>();
    Map<String, Integer> groupOfFlavor = new HashMap<>();
    for (int g = 0; g < groups.size(); g++) {
      ResourceGroup group = groups.get(g);
      FieldPath gp = path.index(g);
      if (group == null) {
        errors.add(FieldError.required(gp, "a resource group must not be null"));
        continue;
      }
      List<String> covered = group.coveredResources == null ? List.of() : group.coveredResources;
      checkCoveredResources(covered, gp.child("coveredResources"), g, groupOfResource, errors);
      checkFlavors(
          group.flavors,
          covered,
          gp.child("flavors"),
          g,
          groupOfFlavor,
          limitsAllowed,
          limitsNeed,
          errors);
    }
  }

  private static void checkCoveredResources(
      List<String> covered,
      FieldPath path,
      int group,
      Map<String, Integer> groupOfResource,
      Errors errors) {
    if (covered.isEmpty()) {
      errors.add(FieldError.required(path, "a resource group covers at least one resource"));
    } else if (covered.size() > MAX_ITEMS) {
      errors.add(FieldError.tooMany(path, covered.size(), MAX_ITEMS));
    }
    Set<String> seen = new HashSet<>();
    for (int r = 0; r < covered.size(); r++) {
      String resource = covered.get(r);
      FieldPath rp = path.index(r);
      if (resource == null || resource.isEmpty()) {
        errors.add(FieldError.required(rp, "a resource name is required"));
        continue;
      }
      String problem = Names.qualifiedNameProblem(resource);
      if (problem != null) {
        errors.add(
            FieldError.invalid(
                rp,
                resource,
                "must be a resource name such as cpu or" + " nvidia.com/gpu: " + problem));
      }
      if (!seen.add(resource)) {
        errors.add(FieldError.duplicate(rp, resource));
      } else if (groupOfResource.containsKey(resource)) {
        errors.add(
            FieldError.invalid(
                rp,
                resource,
                "resource is already covered by"
                    + " resourceGroups["
                    + groupOfResource.get(resource)
                    + "]; a resource belongs to one"
                    + " resource group only"));
      } else {
        groupOfResource.put(resource, group);
      }
    }
  }

  private static void checkFlavors(
      List<FlavorQuotas> flavors,
      List<String> covered,
      FieldPath path,
      int group,
      Map<String, Integer> groupOfFlavor,
      boolean limitsAllowed,
      String limitsNeed,
      Errors errors) {
    if (flavors == null || flavors.isEmpty()) {
      errors.add(FieldError.required(path, "a resource group has at least one flavor"));
      return;
    }
    if (flavors.size() > MAX_ITEMS) {
      errors.add(FieldError.tooMany(path, flavors.size(), MAX_ITEMS));
    }
    Set<String> seen = new HashSet<>();
    for (int f = 0; f < flavors.size(); f++) {
      FlavorQuotas flavor = flavors.get(f);
      FieldPath fp = path.index(f);
      if (flavor == null) {
        errors.add(FieldError.required(fp, "a flavor must not be null"));
        continue;
      }
      if (flavor.name == null || flavor.name.isEmpty()) {
        errors.add(FieldError.required(fp.child("name"), "the ResourceFlavor's name is required"));
      } else {
        errors.dnsSubdomain(fp.child("name"), flavor.name);
        if (!seen.add(flavor.name)) {
          errors.add(FieldError.duplicate(fp.child("name"), flavor.name));
        } else if (groupOfFlavor.containsKey(flavor.name)) {
          errors.add(
              FieldError.invalid(
                  fp.child("name"),
                  flavor.name,
                  "flavor is already used"
                      + " by resourceGroups["
                      + groupOfFlavor.get(flavor.name)
                      + "]; a flavor belongs to"
                      + " one resource group only"));
        } else {
          groupOfFlavor.put(flavor.name, group);
        }
      }
      checkQuotas(
          flavor.resources, covered, fp.child("resources"), limitsAllowed, limitsNeed, errors);
    }
  }

  private static void checkQuotas(
      List<ResourceQuota> quotas,
      List<String> covered,
      FieldPath path,
      boolean limitsAllowed,
      String limitsNeed,
      Errors errors) {
    List<ResourceQuota> list = quotas == null ? List.of() : quotas;
    if (list.size() != covered.size()) {
      errors.add(
          FieldError.invalid(
              path,
              list.size(),
              "must list every covered resource ("
                  + covered.size()
                  + "), in the order of coveredResources"));
    }
    for (int r = 0; r < list.size(); r++) {
      ResourceQuota quota = list.get(r);
      FieldPath rp = path.index(r);
      if (quota == null) {
        errors.add(FieldError.required(rp, "a resource quota must not be null"));
        continue;
      }
      if (r < covered.size() && !covered.get(r).equals(quota.name)) {
        errors.add(
            FieldError.invalid(
                rp.child("name"),
                quota.name,
                "must be \""
                    + covered.get(r)
                    + "\": flavors list the covered resources in the order of coveredResources"));
      }
      if (quota.nominalQuota == null) {
        errors.add(FieldError.required(rp.child("nominalQuota"), "nominalQuota is required"));
      }
      Quantities.checkNonNegative(quota.nominalQuota, rp.child("nominalQuota"), errors);
      Quantities.checkNonNegative(quota.borrowingLimit, rp.child("borrowingLimit"), errors);
      Quantities.checkNonNegative(quota.lendingLimit, rp.child("lendingLimit"), errors);
      if (!limitsAllowed && quota.borrowingLimit != null) {
        errors.add(
            FieldError.forbidden(
                rp.child("borrowingLimit"), "borrowingLimit is only allowed with a " + limitsNeed));
      }
      if (!limitsAllowed && quota.lendingLimit != null) {
        errors.add(
            FieldError.forbidden(
                rp.child("lendingLimit"), "lendingLimit is only allowed with a " + limitsNeed));
      }
      Optional<BigDecimal> nominal = Quantities.value(quota.nominalQuota);
      Optional<BigDecimal> lending = Quantities.value(quota.lendingLimit);
      if (nominal.isPresent()
          && lending.isPresent()
          && lending.get().compareTo(nominal.get()) > 0) {
        errors.add(
            FieldError.invalid(
                rp.child("lendingLimit"),
                quota.lendingLimit.toString(),
                "must be less than or equal to nominalQuota (" + quota.nominalQuota + ")"));
      }
    }
  }

  /** Every flavor name in the groups, for rules that refer to them (admission checks). */
  static Set<String> flavorNames(List<ResourceGroup> groups) {
    Set<String> names = new HashSet<>();
    if (groups != null) {
      for (ResourceGroup g : groups) {
        if (g != null && g.flavors != null) {
          g.flavors.stream()
              .filter(f -> f != null && f.name != null)
              .forEach(f -> names.add(f.name));
        }
      }
    }
    return names;
  }
}
