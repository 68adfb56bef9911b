package dev.berth.engine.model;

import java.util.List;

/** Resources that are always assigned together from one of an ordered list of flavors. */
public record ResourceGroup(List<String> coveredResources, List<FlavorQuotas> flavors) {
  public ResourceGroup {
    coveredResources = List.copyOf(coveredResources);
    flavors = List.copyOf(flavors);
  }
}
