package dev.berth.api.v1beta1;

import dev.berth.api.crd.MaxLength;
import io.fabric8.generator.annotation.Required;

/** Capacity of one resource in one flavor, as quantities (see docs/capacity.md). */
public class FlavorResourceCapacity {
  @Required
  @MaxLength(317)
  public String name;

  /** Sum of status.capacity of every matching node, whatever its state. */
  @MaxLength(64)
  public String physical;

  /** Sum of status.allocatable of the usable nodes, minus the platform reservation. */
  @MaxLength(64)
  public String allocatable;

  /** The flavor's spec.platformReservation of this resource. */
  @MaxLength(64)
  public String platformReserved;

  /** Sum of the nominal quotas of ClusterQueues and Cohorts in this flavor. */
  @MaxLength(64)
  public String committed;

  /** The most one ClusterQueue could hold by borrowing, if nothing else were in use. */
  @MaxLength(64)
  public String borrowingPeak;

  /** Quota reserved now by admitted workloads in this flavor. */
  @MaxLength(64)
  public String reserved;

  /** Requests of the running pods bound to the flavor's nodes. */
  @MaxLength(64)
  public String inUse;

  /** committed ÷ allocatable, two decimals; "+Inf" when committed quota has no capacity. */
  @MaxLength(64)
  public String overCommitRatio;

  /** A time-sliced or MPS GPU share, not an exclusive device. */
  public Boolean shared;
}
