package dev.berth.api.v1beta1;

import dev.berth.api.crd.PrinterColumns;
import dev.berth.api.crd.PrinterColumns.Column;
import dev.berth.api.crd.Rule;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * A gate between quota reservation and admission, run by the controller it names: a workload that
 * holds quota starts only once every check of its ClusterQueue says Ready.
 */
@Group(Berth.GROUP)
@Version(Berth.VERSION)
@Plural("admissionchecks")
@ShortNames({"ac"})
@PrinterColumns({
  @Column(name = "Controller", jsonPath = ".spec.controllerName"),
  @Column(name = "Active", jsonPath = ".status.conditions[?(@.type==\"Active\")].status"),
  @Column(
      name = "Message",
      jsonPath = ".status.conditions[?(@.type==\"Active\")].message",
      priority = 1),
  @Column(name = "Age", type = "date", jsonPath = ".metadata.creationTimestamp")
})
@Rule(
    value =
        "!has(oldSelf.spec) || (has(self.spec) && self.spec.controllerName == oldSelf.spec.controllerName)",
    message = "spec.controllerName is immutable")
public class AdmissionCheck extends CustomResource<AdmissionCheckSpec, AdmissionCheckStatus> {}
