package dev.berth.api.v1beta1;

import dev.berth.api.crd.Items;
import dev.berth.api.crd.ListType;
import dev.berth.api.crd.MaxLength;
import dev.berth.api.crd.Rule;
import io.fabric8.generator.annotation.Required;
import java.util.List;

/**
 * Resources that are assigned a flavor together: a podSet gets one flavor for all of them (GPUs,
 * and the cpu and memory of the same nodes).
 */
@Rule(
    value = "self.flavors.all(f, size(f.resources) == size(self.coveredResources))",
    message = "each flavor must list every covered resource")
@Rule(
    value = "self.flavors.all(f, f.resources.map(r, r.name) == self.coveredResources)",
    message = "each flavor must list the covered resources in the same order")
public class ResourceGroup {
  @Required
  @Items(min = 1, max = 64)
  @ListType("set")
  @MaxLength(316)
  @Rule(
      value = "self.all(r, r.matches('" + Berth.RESOURCE_NAME + "'))",
      message = "coveredResources must be resource names such as cpu or nvidia.com/gpu")
  public List<String> coveredResources;

  @Required
  @Items(min = 1, max = 64)
  @ListType(value = "map", keys = "name")
  public List<FlavorQuotas> flavors;

  public ResourceGroup() {}

  public ResourceGroup(List<String> coveredResources, List<FlavorQuotas> flavors) {
    this.coveredResources = coveredResources;
    this.flavors = flavors;
  }
}
