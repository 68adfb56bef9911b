package dev.berth.api.v1beta1;

import dev.berth.api.crd.DateTime;
import dev.berth.api.crd.Items;
import dev.berth.api.crd.ListType;
import dev.berth.api.crd.MaxLength;
import io.fabric8.generator.annotation.Required;
import java.util.List;

/**
 * The usage ledger's durable record of a workload: requested resources × occupied time, summed over
 * every run from quota reservation to its release (eviction, preemption) or to the finish. Written
 * by the operator when a run ends (see docs/capacity.md).
 */
public class WorkloadUsage {
  /** Runs counted: quota reservations that ended. */
  public Integer runs;

  /** When the last counted run's quota was reserved; a run starting then is never counted twice. */
  @DateTime
  @MaxLength(64)
  public String lastRunStart;

  /** When the last counted run ended. */
  @DateTime
  @MaxLength(64)
  public String lastRunEnd;

  /** Seconds with quota reserved, over all counted runs (decimal, millisecond precision). */
  @MaxLength(64)
  public String occupiedSeconds;

  /** The ClusterQueue the last counted run reserved quota in. */
  @MaxLength(253)
  public String clusterQueue;

  /** Who the usage is billed to (berth.dev/cost-centre of the Workload or its Namespace). */
  @MaxLength(63)
  public String costCentre;

  /** Per podSet, flavor and resource. */
  @Items(max = 512)
  @ListType(
      value = "map",
      keys = {"podSet", "flavor", "resource"})
  public List<Entry> resources;

  /** One podSet's use of one resource in one flavor. */
  public static class Entry {
    @Required
    @MaxLength(63)
    public String podSet;

    @Required
    @MaxLength(253)
    public String flavor;

    @Required
    @MaxLength(317)
    public String resource;

    /** What the podSet's pods together requested in the last run, as a quantity. */
    @MaxLength(64)
    public String requested;

    /**
     * Requested amount in the resource's natural unit (cores, bytes, devices) × seconds, summed
     * over runs (decimal): GPU-seconds for nvidia.com/gpu, divide by 3600 for GPU-hours.
     */
    @MaxLength(64)
    public String resourceSeconds;
  }
}
