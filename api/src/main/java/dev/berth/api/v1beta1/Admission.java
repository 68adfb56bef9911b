package dev.berth.api.v1beta1;

import dev.berth.api.crd.Items;
import dev.berth.api.crd.MaxLength;
import java.util.List;

/** Where a workload reserved quota: the ClusterQueue and, per podSet, the flavors and amounts. */
public class Admission {
  @MaxLength(253)
  public String clusterQueue;

  @Items(max = 18)
  public List<PodSetAssignment> podSetAssignments;
}
