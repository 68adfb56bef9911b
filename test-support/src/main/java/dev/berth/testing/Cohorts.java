package dev.berth.testing;

import dev.berth.api.v1beta1.Cohort;
import dev.berth.api.v1beta1.CohortSpec;
import dev.berth.api.v1beta1.FairSharing;
import io.fabric8.kubernetes.api.model.Quantity;

/** A Cohort object: {@code Cohorts.named("ai").parent("org").flavor("h100", gpu("16"))}. */
public final class Cohorts {
  private final Cohort cohort = new Cohort();
  private final CohortSpec spec = new CohortSpec();
  private final ResourceGroups groups = new ResourceGroups();

  private Cohorts(String name) {
    cohort.getMetadata().setName(name);
    cohort.setSpec(spec);
  }

  public static Cohorts named(String name) {
    return new Cohorts(name);
  }

  public Cohorts parent(String parent) {
    spec.parentName = parent;
    return this;
  }

  /** The cohort's own quota on a flavor; flavors with the same resources share a group. */
  public Cohorts flavor(String flavor, Quota... quotas) {
    groups.add(flavor, quotas);
    return this;
  }

  public Cohorts fairSharingWeight(String weight) {
    spec.fairSharing = new FairSharing();
    spec.fairSharing.weight = new Quantity(weight);
    return this;
  }

  public Cohort build() {
    spec.resourceGroups = groups.build();
    return cohort;
  }
}
