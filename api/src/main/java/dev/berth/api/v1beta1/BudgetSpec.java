package dev.berth.api.v1beta1;

import dev.berth.api.crd.Items;
import dev.berth.api.crd.ListType;
import dev.berth.api.crd.MaxLength;
import dev.berth.api.crd.Rule;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import java.util.List;

/** Whose usage is limited, per which calendar window, to how many hours of which resources. */
@Rule(
    value =
        "(has(self.localQueue) ? 1 : 0) + (has(self.clusterQueue) ? 1 : 0)"
            + " + (has(self.costCentre) ? 1 : 0) == 1",
    message = "exactly one of localQueue, clusterQueue and costCentre must be set")
public class BudgetSpec {
  /** The LocalQueue whose workloads are charged and held. */
  public LocalQueueReference localQueue;

  /** The ClusterQueue whose workloads (of every LocalQueue pointing at it) are charged and held. */
  @Pattern(Berth.DNS_SUBDOMAIN)
  @MaxLength(253)
  public String clusterQueue;

  /**
   * The cost centre (label berth.dev/cost-centre) whose usage is charged; the LocalQueues of
   * namespaces labelled with it are held when it is spent.
   */
  @Pattern("^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
  @MaxLength(63)
  public String costCentre;

  @Required public BudgetPeriod period;

  /**
   * The IANA time zone the window's boundaries are in ("UTC", "Europe/Berlin"); required, so that
   * nobody's month starts at an hour they did not choose.
   */
  @Required
  @MaxLength(64)
  public String timeZone;

  /** Hours of each resource per window, in the resource's natural unit (GPUs, cores, bytes). */
  @Required
  @Items(min = 1, max = 16)
  @ListType(value = "map", keys = "resource")
  public List<BudgetLimit> limits;

  /**
   * Once the budget is spent: Wait (absent means Wait), its new workloads wait for the next window;
   * RunOnIdleCapacity, they may still run on capacity nobody within budget uses, as the first
   * workloads to be preempted. Running workloads are never stopped by their budget either way.
   */
  public BudgetWhenExhausted whenExhausted;

  /** One LocalQueue, by namespace and name. */
  public static class LocalQueueReference {
    @Required
    @MaxLength(63)
    public String namespace;

    @Required
    @MaxLength(253)
    public String name;
  }
}
