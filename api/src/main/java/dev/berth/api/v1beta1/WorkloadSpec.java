package dev.berth.api.v1beta1;

import dev.berth.api.crd.Items;
import dev.berth.api.crd.ListType;
import dev.berth.api.crd.MaxLength;
import dev.berth.api.crd.Rule;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import java.util.List;

/** What a workload asks for, where it queues, and how important it is. */
public class WorkloadSpec {
  @Required
  @Items(min = 1, max = 18)
  @ListType(value = "map", keys = "name")
  @Rule(
      value = "self.filter(p, has(p.minCount)).size() <= 1",
      message = "at most one podSet may use minCount")
  public List<PodSet> podSets;

  /** The LocalQueue, in the workload's namespace. */
  @Pattern(Berth.DNS_SUBDOMAIN)
  @MaxLength(253)
  public String queueName;

  public PriorityClassRef priorityClassRef;

  /** The effective priority, resolved from the priority class when the workload is created. */
  public Integer priority;

  /**
   * The most seconds the workload may run admitted, summed over its admissions; past it the
   * workload is evicted and deactivated (reason MaximumExecutionTimeExceeded).
   */
  @io.fabric8.generator.annotation.Min(1)
  public Integer maximumExecutionTimeSeconds;

  /** false deactivates the workload: it is evicted and not requeued. */
  public Boolean active;

  /** The priority class a workload's priority comes from. */
  public static class PriorityClassRef {
    /** berth.dev for a WorkloadPriorityClass, scheduling.k8s.io for a PriorityClass. */
    @MaxLength(253)
    public String group;

    @MaxLength(63)
    public String kind;

    @Required
    @Pattern(Berth.DNS_SUBDOMAIN)
    @MaxLength(253)
    public String name;
  }
}
