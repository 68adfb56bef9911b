package dev.berth.api.v1beta1;

import dev.berth.api.crd.PrinterColumns;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/** A kind of node (GPU model, spot or on-demand, MIG slice) that quota is counted in. */
@Group(Berth.GROUP)
@Version(Berth.VERSION)
@Plural("resourceflavors")
@ShortNames({"rf", "flavor", "flavors"})
@PrinterColumns({
  @PrinterColumns.Column(name = "Topology", jsonPath = ".spec.topologyName"),
  @PrinterColumns.Column(name = "Nodes", type = "integer", jsonPath = ".status.nodes"),
  @PrinterColumns.Column(name = "Usable", type = "integer", jsonPath = ".status.allocatableNodes"),
  @PrinterColumns.Column(
      name = "GPU-Alloc",
      jsonPath = ".status.resources[?(@.name==\"nvidia.com/gpu\")].allocatable"),
  @PrinterColumns.Column(
      name = "GPU-Committed",
      jsonPath = ".status.resources[?(@.name==\"nvidia.com/gpu\")].committed"),
  @PrinterColumns.Column(
      name = "OverCommitted",
      jsonPath = ".status.conditions[?(@.type==\"OverCommitted\")].status"),
  @PrinterColumns.Column(
      name = "Shared",
      type = "boolean",
      jsonPath = ".status.shared",
      priority = 1),
  @PrinterColumns.Column(name = "Age", type = "date", jsonPath = ".metadata.creationTimestamp")
})
public class ResourceFlavor extends CustomResource<ResourceFlavorSpec, ResourceFlavorStatus> {}
