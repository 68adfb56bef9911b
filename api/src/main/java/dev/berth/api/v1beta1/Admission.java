package dev.berth.api.v1beta1;

import java.util.List;

/** Where a workload reserved quota: the ClusterQueue and, per podSet, the flavors and amounts. */
public class Admission {
  public String clusterQueue;
  public List<PodSetAssignment> podSetAssignments;
}
