package dev.berth.api.v1beta1;

import dev.berth.api.crd.DateTime;
import dev.berth.api.crd.Items;
import dev.berth.api.crd.ListType;
import dev.berth.api.crd.MaxLength;
import io.fabric8.generator.annotation.Required;
import java.util.List;

/**
 * The current window's use, written by the operator. {@code charged} and {@code counted} are its
 * durable record of the runs that ended in the window, so that a restarted operator neither forgets
 * nor double-charges them; running workloads are added from the ledger as they run.
 */
public class BudgetStatus {
  /** The window: 2026-12 (Month), 2026-W49 (Week), 2026-12-07 (Day). */
  @MaxLength(16)
  public String window;

  @DateTime
  @MaxLength(64)
  public String windowStart;

  /** When the next window starts. */
  @DateTime
  @MaxLength(64)
  public String resetsAt;

  /** Some resource's use reached its limit: new workloads of the budget wait. */
  public Boolean exhausted;

  /** The BudgetExhausted message pending workloads get, or how much is left. */
  @MaxLength(1024)
  public String message;

  /** Per limited resource: used and limit in hours (six decimals). */
  @Items(max = 16)
  @ListType(value = "map", keys = "resource")
  public List<ResourceUse> resources;

  /** Per workload, the start of the last ended run already charged in this window. */
  @Items(max = 4096)
  @ListType(value = "map", keys = "uid")
  public List<CountedRun> counted;

  @DateTime
  @MaxLength(64)
  public String lastUpdateTime;

  /** One resource's use in the window. */
  public static class ResourceUse {
    @Required
    @MaxLength(317)
    public String resource;

    /** Hours used: ended runs' and running workloads' time in this window. */
    @MaxLength(64)
    public String usedHours;

    @MaxLength(64)
    public String limitHours;

    /** Resource-seconds of the runs that ended in this window (the durable part of usedHours). */
    @MaxLength(64)
    public String endedResourceSeconds;
  }

  /** A workload whose ended runs up to {@code runStart} are charged in this window. */
  public static class CountedRun {
    @Required
    @MaxLength(128)
    public String uid;

    @Required
    @DateTime
    @MaxLength(64)
    public String runStart;
  }
}
