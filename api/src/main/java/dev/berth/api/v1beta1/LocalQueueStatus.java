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

  @Items(max = 1024)
  public List<FlavorUsage> flavorUsage;

  public FairSharingStatus fairSharing;
  public Long observedGeneration;
}
