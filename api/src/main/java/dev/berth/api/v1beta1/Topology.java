package dev.berth.api.v1beta1;

import dev.berth.api.crd.PrinterColumns;
import dev.berth.api.crd.PrinterColumns.Column;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/** The node-label levels of a data centre, outermost first: block, rack, host. */
@Group(Berth.GROUP)
@Version(Berth.VERSION)
@Plural("topologies")
@ShortNames({"topo"})
@PrinterColumns({@Column(name = "Age", type = "date", jsonPath = ".metadata.creationTimestamp")})
public class Topology extends CustomResource<TopologySpec, Void> {}
