package dev.berth.api.v1beta1;

import java.util.List;

/** Quota in use (or reserved) in one flavor, per resource. */
public class FlavorUsage {
  public String name;
  public List<ResourceUsage> resources;

  public FlavorUsage() {}

  public FlavorUsage(String name, List<ResourceUsage> resources) {
    this.name = name;
    this.resources = resources;
  }
}
