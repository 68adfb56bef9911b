package dev.berth.engine.model;

import java.util.List;
import java.util.Objects;

/** The quotas a ClusterQueue (or Cohort) holds on one flavor, one entry per covered resource. */
public record FlavorQuotas(String name, List<ResourceQuota> resources) {
  public FlavorQuotas {
    Objects.requireNonNull(name, "name");
    resources = List.copyOf(resources);
  }
}
