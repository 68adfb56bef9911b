package dev.berth.api.v1beta1;

import dev.berth.api.crd.MaxLength;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;

/** Which controller runs the check, and the object that configures it for this check. */
public class AdmissionCheckSpec {
  /**
   * The controller that writes this check's state, e.g. berth.dev/provisioning-request. Free-form
   * as in Kueue: it is only ever compared with the name a controller looks for.
   */
  @Required
  @MaxLength(253)
  public String controllerName;

  /** A cluster-scoped object of the controller's own kind that configures the check. */
  public Parameters parameters;

  /** A reference to the check's configuration object. */
  public static class Parameters {
    @Required
    @MaxLength(253)
    @Pattern(Berth.DNS_SUBDOMAIN)
    public String apiGroup;

    @Required
    @MaxLength(63)
    @Pattern("^[A-Z]([-A-Za-z0-9]*[A-Za-z0-9])?$")
    public String kind;

    @Required
    @MaxLength(253)
    @Pattern(Berth.DNS_SUBDOMAIN)
    public String name;

    public Parameters() {}

    public Parameters(String apiGroup, String kind, String name) {
      this.apiGroup = apiGroup;
      this.kind = kind;
      this.name = name;
    }
  }

  public AdmissionCheckSpec() {}

  public AdmissionCheckSpec(String controllerName, Parameters parameters) {
    this.controllerName = controllerName;
    this.parameters = parameters;
  }
}
