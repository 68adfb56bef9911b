package dev.berth.api.v1beta1;

import dev.berth.api.crd.PrinterColumns;
import dev.berth.api.crd.PrinterColumns.Column;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/** A pool of quota, per flavor and resource, that LocalQueues in matching namespaces draw on. */
@Group(Berth.GROUP)
@Version(Berth.VERSION)
@Plural("clusterqueues")
@ShortNames({"cq", "cqs"})
@PrinterColumns({
  @Column(name = "Cohort", jsonPath = ".spec.cohortName"),
  @Column(name = "Strategy", jsonPath = ".spec.queueingStrategy"),
  @Column(name = "Pending", type = "integer", jsonPath = ".status.pendingWorkloads"),
  @Column(name = "Admitted", type = "integer", jsonPath = ".status.admittedWorkloads"),
  @Column(
      name = "Active",
      jsonPath = ".status.conditions[?(@.type==\"Active\")].status",
      priority = 1),
  @Column(name = "Age", type = "date", jsonPath = ".metadata.creationTimestamp")
})
public class ClusterQueue extends CustomResource<ClusterQueueSpec, ClusterQueueStatus> {}
