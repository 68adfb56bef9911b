package dev.berth.engine.model;

import java.util.List;
import java.util.Objects;

/**
 * An explicit Cohort: an optional parent, its own shared quota, and (in its ResourceQuotas)
 * borrowing and lending limits towards the parent.
 */
public record Cohort(String name, String parentName, List<ResourceGroup> resourceGroups) {
  public Cohort {
    Objects.requireNonNull(name, "name");
    parentName = parentName == null || parentName.isEmpty() ? null : parentName;
    resourceGroups = resourceGroups == null ? List.of() : List.copyOf(resourceGroups);
  }
}
