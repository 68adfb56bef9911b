package dev.berth.api.v1beta1;

import dev.berth.api.crd.MaxLength;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;

/** At most {@code hours} of a resource per window: requested amount × hours with quota reserved. */
public class BudgetLimit {
  /** A resource name as quotas name it (nvidia.com/gpu, cpu, memory). */
  @Required
  @MaxLength(317)
  public String resource;

  /** A decimal number of resource-hours ("20000", "0.5"). */
  @Required
  @Pattern("^[0-9]+(\\.[0-9]+)?$")
  @MaxLength(32)
  public String hours;

  public BudgetLimit() {}

  public BudgetLimit(String resource, String hours) {
    this.resource = resource;
    this.hours = hours;
  }
}
