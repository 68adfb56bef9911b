package dev.berth.api.v1beta1;

import dev.berth.api.crd.Items;
import dev.berth.api.crd.ListType;
import java.util.List;

/** What the queue holds now; written only by the operator. */
public class ClusterQueueStatus {
  @Items(max = 16)
  @ListType(value = "map", keys = "type")
  public List<Condition> conditions;

  /** Quota reserved by workloads, per flavor, with the borrowed part. */
  @Items(max = 1024)
  public List<FlavorUsage> flavorsReservation;

  /** Quota used by admitted workloads, per flavor, with the borrowed part. */
  @Items(max = 1024)
  public List<FlavorUsage> flavorsUsage;

  public Integer pendingWorkloads;
  public Integer reservingWorkloads;
  public Integer admittedWorkloads;
  public FairSharingStatus fairSharing;
  public Long observedGeneration;
}
