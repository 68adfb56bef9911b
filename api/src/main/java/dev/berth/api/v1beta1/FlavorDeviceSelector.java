package dev.berth.api.v1beta1;

import dev.berth.api.crd.MaxLength;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;

/**
 * Which DRA devices a flavor's pods may be allocated, as a DRA DeviceSelector says it: a CEL
 * expression over one device ({@code device.driver}, {@code device.attributes["domain"].name},
 * {@code device.capacity["domain"].name}), added to the selectors of each request of the claims
 * made for admitted pods, and counted in the flavor's capacity (docs/dra.md).
 */
public class FlavorDeviceSelector {
  /**
   * The DeviceClass whose requests the selector narrows; unset: every request, whatever its class.
   */
  @MaxLength(253)
  @Pattern(Berth.DNS_SUBDOMAIN)
  public String deviceClassName;

  /** The CEL expression, as in a ResourceClaim's {@code selectors[].cel}. */
  @Required public Cel cel;

  public FlavorDeviceSelector() {}

  public FlavorDeviceSelector(String deviceClassName, String expression) {
    this.deviceClassName = deviceClassName;
    this.cel = new Cel(expression);
  }

  /** A CEL expression that must evaluate to true for a device the flavor may use. */
  public static class Cel {
    /** As Kubernetes limits a device selector's expression. */
    @Required
    @MaxLength(10240)
    public String expression;

    public Cel() {}

    public Cel(String expression) {
      this.expression = expression;
    }
  }
}
