package dev.berth.api.v1beta1;

import dev.berth.api.crd.PrinterColumns;
import dev.berth.api.crd.PrinterColumns.Column;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * A cohort made explicit: its place in a tree of cohorts, quota of its own, and limits towards its
 * parent. A cohort named by a ClusterQueue exists without this object.
 */
@Group(Berth.GROUP)
@Version(Berth.VERSION)
@Plural("cohorts")
@ShortNames({"coh"})
@PrinterColumns({
  @Column(name = "Parent", jsonPath = ".spec.parentName"),
  @Column(name = "Active", jsonPath = ".status.conditions[?(@.type==\"Active\")].status"),
  @Column(name = "Age", type = "date", jsonPath = ".metadata.creationTimestamp")
})
public class Cohort extends CustomResource<CohortSpec, CohortStatus> {}
