package dev.berth.api.v1beta1;

import dev.berth.api.crd.Items;
import dev.berth.api.crd.ListType;
import java.util.List;

/** The ClusterQueue's counts and usage, for this namespace only. */
public class LocalQueueStatus {
  @Items(max = 16)
  @ListType(value = "map", keys = "type")
  public List<Condition> conditions;

  public Integer pendingWorkloads;
  public Integer reservingWorkloads;
  public Integer admittedWorkloads;

  @Items(max = 1024)
  public List<FlavorUsage> flavorsReservation;

  /** What the namespace's admitted workloads use, per flavor (Kueue v1beta2's name). */
  @Items(max = 1024)
  public List<FlavorUsage> flavorsUsage;

  public FairSharingStatus fairSharing;
  public Long observedGeneration;
}
