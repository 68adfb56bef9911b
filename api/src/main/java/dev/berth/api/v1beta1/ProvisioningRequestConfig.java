package dev.berth.api.v1beta1;

import dev.berth.api.crd.PrinterColumns;
import dev.berth.api.crd.PrinterColumns.Column;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * How the built-in berth.dev/provisioning-request admission check asks the cluster autoscaler for
 * capacity: the ProvisioningRequest class, its parameters, the resources that need new nodes and
 * how often a failed request is tried again. An AdmissionCheck names it in spec.parameters.
 */
@Group(Berth.GROUP)
@Version(Berth.VERSION)
@Plural("provisioningrequestconfigs")
@ShortNames({"prc"})
@PrinterColumns({
  @Column(name = "Class", jsonPath = ".spec.provisioningClassName"),
  @Column(name = "Managed", jsonPath = ".spec.managedResources", priority = 1),
  @Column(name = "Age", type = "date", jsonPath = ".metadata.creationTimestamp")
})
public class ProvisioningRequestConfig extends CustomResource<ProvisioningRequestConfigSpec, Void> {
  /** The controller name of the built-in check this kind configures. */
  public static final String CONTROLLER_NAME = "berth.dev/provisioning-request";

  public static final String KIND = "ProvisioningRequestConfig";
}
