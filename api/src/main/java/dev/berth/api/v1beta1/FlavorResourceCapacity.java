package dev.berth.api.v1beta1;

import io.fabric8.generator.annotation.Required;

/** Capacity of one resource in one flavor, as quantities (see docs/capacity.md). */
public class FlavorResourceCapacity {
  @Required
  public String name;

  /** Sum of status.capacity of every matching node, whatever its state. */
  public String physical;

  /** Sum of status.allocatable of the usable nodes, minus the platform reservation. */
  public String allocatable;

  /** The flavor's spec.platformReservation of this resource. */
  public String platformReserved;

  /** Sum of the nominal quotas of ClusterQueues and Cohorts in this flavor. */
  public String committed;

  /** The most one ClusterQueue could hold by borrowing, if nothing else were in use. */
  public String borrowingPeak;

  /** Quota reserved now by admitted workloads in this flavor. */
  public String reserved;

  /** Requests of the running pods bound to the flavor's nodes. */
  public String inUse;

  /** committed ÷ allocatable, two decimals; "+Inf" when committed quota has no capacity. */
  public String overCommitRatio;

  /** A time-sliced or MPS GPU share, not an exclusive device. */
  public Boolean shared;
}
