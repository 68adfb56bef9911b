package dev.berth.api.v1beta1;

import dev.berth.api.crd.Items;
import dev.berth.api.crd.MaxLength;
import dev.berth.api.crd.Rule;
import io.fabric8.generator.annotation.Pattern;
import java.util.List;

/** Parent, own quota, and borrowing/lending limits towards the parent. */
@Rule(
    value =
        "has(self.parentName) || !has(self.resourceGroups) || self.resourceGroups.all(g, g.flavors.all(f, f.resources.all(r, !has(r.borrowingLimit) && !has(r.lendingLimit))))",
    message = "borrowingLimit and lendingLimit are only allowed with a parentName")
public class CohortSpec {
  @Pattern(Berth.DNS_SUBDOMAIN)
  @MaxLength(253)
  public String parentName;

  @Items(max = 16)
  public List<ResourceGroup> resourceGroups;

  public FairSharing fairSharing;
}
