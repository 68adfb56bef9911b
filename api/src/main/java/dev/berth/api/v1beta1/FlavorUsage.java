package dev.berth.api.v1beta1;

import dev.berth.api.crd.Items;
import dev.berth.api.crd.MaxLength;
import java.util.List;

/** Quota in use (or reserved) in one flavor, per resource. */
public class FlavorUsage {
  @MaxLength(253)
  public String name;

  @Items(max = 64)
  public List<ResourceUsage> resources;

  public FlavorUsage() {}

  public FlavorUsage(String name, List<ResourceUsage> resources) {
    this.name = name;
    this.resources = resources;
  }
}
