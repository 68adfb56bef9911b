package dev.berth.api.v1beta1;

import dev.berth.api.crd.Items;
import dev.berth.api.crd.ListType;
import dev.berth.api.crd.MaxLength;
import java.util.List;

/**
 * What the flavor's nodes hold against what quota promises; written only by the operator (see
 * docs/capacity.md for every number).
 */
public class ResourceFlavorStatus {
  @Items(max = 16)
  @ListType(value = "map", keys = "type")
  public List<Condition> conditions;

  /** Nodes matching the flavor's nodeLabels. */
  public Integer nodes;

  /** Of those, the Ready, schedulable ones free of maintenance and failure taints. */
  public Integer allocatableNodes;

  /**
   * True when the flavor's GPUs are time-sliced or MPS-shared: each published GPU is a share of a
   * device, not a device of its own.
   */
  public Boolean shared;

  /** How the GPUs are shared (the device plugin's nvidia.com/gpu.sharing-strategy), if shared. */
  @MaxLength(32)
  public String sharingStrategy;

  /** Shares published per device (nvidia.com/gpu.replicas), when all shared nodes agree. */
  public Integer sharingReplicas;

  /** Per resource, in Kubernetes quantities. */
  @Items(max = 64)
  @ListType(value = "map", keys = "name")
  public List<FlavorResourceCapacity> resources;

  public Long observedGeneration;
}
