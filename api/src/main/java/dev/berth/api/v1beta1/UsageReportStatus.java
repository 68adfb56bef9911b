package dev.berth.api.v1beta1;

import dev.berth.api.crd.DateTime;
import dev.berth.api.crd.Items;
import dev.berth.api.crd.ListType;
import dev.berth.api.crd.MaxLength;
import io.fabric8.generator.annotation.Required;
import java.util.List;

/**
 * The month's runs, summed. Amounts are decimals in the resource's natural unit (cores, bytes,
 * devices) × seconds; see docs/capacity.md for every figure.
 */
public class UsageReportStatus {
  /** Runs counted in this report. */
  public Integer runs;

  /** Requested nvidia.com/gpu × hours over all entries (six decimals). */
  @MaxLength(64)
  public String gpuHours;

  /** GPU-hours used as DCGM measured them, over the runs that were measured (absent: none). */
  @MaxLength(64)
  public String gpuHoursUsed;

  /** When the operator last added a run. */
  @DateTime
  @MaxLength(64)
  public String lastUpdateTime;

  /** Per LocalQueue, ClusterQueue, cost centre, flavor and resource. */
  @Items(max = 2048)
  @ListType(
      value = "map",
      keys = {"localQueue", "clusterQueue", "costCentre", "flavor", "resource"})
  public List<Entry> entries;

  /**
   * The workloads whose runs are counted, each with the start of its last counted run: a run whose
   * start is not after it is never counted again (a retry, an operator restart). Bounded: entries
   * whose Workload already records the run, or is gone, are pruned when the list is long.
   */
  @Items(max = 4096)
  @ListType(value = "map", keys = "uid")
  public List<CountedRun> counted;

  /**
   * The budgets that charge this report's runs (their LocalQueue, ClusterQueue or cost centre is
   * one of the entries'), as the operator's budget book had them at {@link #lastUpdateTime}: the
   * same figures, from the same usage ledger, as each Budget's status then (docs/budgets.md).
   */
  @Items(max = 64)
  @ListType(value = "map", keys = "name")
  public List<BudgetUse> budgets;

  /** One budget's current window, as its Budget's status shows it. */
  public static class BudgetUse {
    @Required
    @MaxLength(253)
    public String name;

    /** Whose: "LocalQueue team-a/train", "ClusterQueue llm", "CostCentre cc-4711". */
    @MaxLength(330)
    public String target;

    /**
     * The Budget's status as written from the same evaluation: window, reset, exhausted, message,
     * used and limit hours per resource (its record of counted runs left out).
     */
    public BudgetStatus status;
  }

  /** One queue's, cost centre's and flavor's use of one resource. */
  public static class Entry {
    @MaxLength(253)
    @Required
    public String localQueue;

    @MaxLength(253)
    @Required
    public String clusterQueue;

    /** "" when neither the Workload nor its Namespace names one. */
    @MaxLength(63)
    @Required
    public String costCentre;

    @MaxLength(253)
    @Required
    public String flavor;

    @MaxLength(317)
    @Required
    public String resource;

    /** Runs that requested this resource here. */
    public Integer runs;

    /** Requested amount × seconds with quota reserved, summed over the runs (decimal). */
    @MaxLength(64)
    public String resourceSeconds;

    /**
     * Of resourceSeconds, the part whose runs were measured by the DCGM join (GPU resources with a
     * Prometheus URL configured); used ÷ measured is the utilization.
     */
    @MaxLength(64)
    public String measuredResourceSeconds;

    /** Device-seconds actually used (utilization × time, from DCGM) over the measured runs. */
    @MaxLength(64)
    public String usedResourceSeconds;
  }

  /** One workload's last counted run. */
  public static class CountedRun {
    @MaxLength(128)
    @Required
    public String uid;

    /** namespace/name, for people reading the report. */
    @MaxLength(253)
    public String workload;

    /** The run's quota reservation time (RFC 3339, milliseconds). */
    @DateTime
    @MaxLength(64)
    @Required
    public String runStart;
  }
}
