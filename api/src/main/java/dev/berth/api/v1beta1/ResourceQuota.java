package dev.berth.api.v1beta1;

import dev.berth.api.crd.MaxLength;
import dev.berth.api.crd.Rule;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.kubernetes.api.model.Quantity;

/** The quota of one resource in one flavor. */
@Rule(
    value =
        "!has(self.lendingLimit) || quantity(string(self.lendingLimit)).compareTo(quantity(string(self.nominalQuota))) <= 0",
    message = "lendingLimit must be less than or equal to nominalQuota")
@Rule(
    value = "!quantity(string(self.nominalQuota)).isLessThan(quantity('0'))",
    message = "nominalQuota must be zero or positive")
@Rule(
    value =
        "!has(self.borrowingLimit) || !quantity(string(self.borrowingLimit)).isLessThan(quantity('0'))",
    message = "borrowingLimit must be zero or positive")
@Rule(
    value =
        "!has(self.lendingLimit) || !quantity(string(self.lendingLimit)).isLessThan(quantity('0'))",
    message = "lendingLimit must be zero or positive")
public class ResourceQuota {
  @Required
  @Pattern(Berth.RESOURCE_NAME)
  @MaxLength(316)
  public String name;

  /** What this queue is guaranteed; the part it does not keep is lent to its cohort. */
  @Required
  @Pattern(Berth.QUANTITY)
  @MaxLength(64)
  public Quantity nominalQuota;

  /** How much more than nominal it may borrow from its cohort; absent means without bound. */
  @Pattern(Berth.QUANTITY)
  @MaxLength(64)
  public Quantity borrowingLimit;

  /** How much of its nominal quota the cohort may borrow; absent means all that is unused. */
  @Pattern(Berth.QUANTITY)
  @MaxLength(64)
  public Quantity lendingLimit;

  public ResourceQuota() {}

  public ResourceQuota(String name, String nominalQuota) {
    this.name = name;
    this.nominalQuota = new Quantity(nominalQuota);
  }
}
