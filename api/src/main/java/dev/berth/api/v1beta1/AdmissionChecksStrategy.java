package dev.berth.api.v1beta1;

import dev.berth.api.crd.Items;
import dev.berth.api.crd.MaxLength;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import java.util.List;

/** Admission checks a workload must pass, optionally only on some flavors. */
public class AdmissionChecksStrategy {
  @Items(max = 64)
  public List<AdmissionCheckRule> admissionChecks;

  /** One check and the flavors it applies to (all when empty). */
  public static class AdmissionCheckRule {
    @Required
    @Pattern(Berth.DNS_SUBDOMAIN)
    @MaxLength(253)
    public String name;

    @Items(max = 64)
    @MaxLength(253)
    public List<String> onFlavors;
  }
}
