package dev.berth.api.v1beta1;

import dev.berth.api.crd.PrinterColumns;
import dev.berth.api.crd.PrinterColumns.Column;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/** A team's entry point in its namespace: Jobs name it, and it points at a ClusterQueue. */
@Group(Berth.GROUP)
@Version(Berth.VERSION)
@Plural("localqueues")
@ShortNames({"lq", "queue", "queues"})
@PrinterColumns({
  @Column(name = "ClusterQueue", jsonPath = ".spec.clusterQueue"),
  @Column(name = "Pending", type = "integer", jsonPath = ".status.pendingWorkloads"),
  @Column(name = "Admitted", type = "integer", jsonPath = ".status.admittedWorkloads"),
  @Column(name = "Age", type = "date", jsonPath = ".metadata.creationTimestamp")
})
public class LocalQueue extends CustomResource<LocalQueueSpec, LocalQueueStatus>
    implements Namespaced {}
