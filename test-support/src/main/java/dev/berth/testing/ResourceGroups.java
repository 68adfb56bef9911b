package dev.berth.testing;

import dev.berth.api.v1beta1.FlavorQuotas;
import dev.berth.api.v1beta1.ResourceGroup;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The resource groups of a ClusterQueue or Cohort, built flavor by flavor: a flavor goes into the
 * group that covers exactly its resources (in the same order, as the CRD requires), or a new one.
 */
final class ResourceGroups {
  private final List<ResourceGroup> groups = new ArrayList<>();

  void add(String flavor, Quota... quotas) {
    List<String> covered = Arrays.stream(quotas).map(Quota::resource).toList();
    ResourceGroup group =
        groups.stream()
            .filter(g -> g.coveredResources.equals(covered))
            .findFirst()
            .orElseGet(
                () -> {
                  ResourceGroup g = new ResourceGroup(new ArrayList<>(covered), new ArrayList<>());
                  groups.add(g);
                  return g;
                });
    group.flavors.add(
        new FlavorQuotas(
            flavor, new ArrayList<>(Arrays.stream(quotas).map(Quota::build).toList())));
  }

  /** The groups, or null when none was added (the field stays unset, as a user would leave it). */
  List<ResourceGroup> build() {
    return groups.isEmpty() ? null : groups;
  }
}
