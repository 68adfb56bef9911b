package dev.berth.engine.model;

import java.util.List;
import java.util.Objects;

/**
 * An explicit Cohort: an optional parent, its own shared quota, (in its ResourceQuotas) borrowing
 * and lending limits towards the parent, and its fair-sharing weight among its parent's children in
 * thousandths (1000 = weight 1, the default; 0 = never favoured while borrowing). The weight of a
 * root cohort counts for nothing: a root competes with nobody.
 */
public record Cohort(
    String name, String parentName, List<ResourceGroup> resourceGroups, Long fairSharingWeight) {
  /** A Cohort with the default fair-sharing weight (1). */
  public Cohort(String name, String parentName, List<ResourceGroup> resourceGroups) {
    this(name, parentName, resourceGroups, null);
  }

  public Cohort {
    Objects.requireNonNull(name, "name");
    parentName = parentName == null || parentName.isEmpty() ? null : parentName;
    resourceGroups = resourceGroups == null ? List.of() : List.copyOf(resourceGroups);
    fairSharingWeight = fairSharingWeight == null ? 1000L : fairSharingWeight;
    if (fairSharingWeight < 0) {
      throw new IllegalArgumentException("Cohort " + name + ": fairSharing.weight must be >= 0");
    }
  }
}
