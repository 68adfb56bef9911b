package dev.berth.api.v1beta1;

import dev.berth.api.crd.Items;
import dev.berth.api.crd.ListType;
import dev.berth.api.crd.MaxLength;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import java.util.List;

/** The quota one flavor brings to a resource group: one entry per covered resource. */
public class FlavorQuotas {
  /** The ResourceFlavor's name. */
  @Required
  @Pattern(Berth.DNS_SUBDOMAIN)
  @MaxLength(253)
  public String name;

  @Required
  @Items(min = 1, max = 64)
  @ListType(value = "map", keys = "name")
  public List<ResourceQuota> resources;

  public FlavorQuotas() {}

  public FlavorQuotas(String name, List<ResourceQuota> resources) {
    this.name = name;
    this.resources = resources;
  }
}
