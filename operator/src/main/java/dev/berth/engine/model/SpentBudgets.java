package dev.berth.engine.model;

import java.util.Map;
import java.util.Set;

/**
 * The budgets spent in their current window, as the operator worked them out from the usage ledger
 * and its clock (the engine reads neither): by LocalQueue key ("namespace/name"), ClusterQueue name
 * and cost centre, each with the message its waiting workloads get. A LocalQueue is held while any
 * of the three names it: itself, its ClusterQueue, or the cost centre of its namespace (the label
 * {@link #COST_CENTRE_LABEL}). {@code onIdleCapacity} holds the messages of the spent budgets whose
 * admin lets their workloads still run on idle capacity (Budget {@code whenExhausted:
 * RunOnIdleCapacity}); a LocalQueue runs so only when every spent budget naming it allows it.
 */
public record SpentBudgets(
    Map<String, String> localQueues,
    Map<String, String> clusterQueues,
    Map<String, String> costCentres,
    Set<String> onIdleCapacity) {
  public static final String COST_CENTRE_LABEL = "berth.dev/cost-centre";

  public static final SpentBudgets NONE = new SpentBudgets(Map.of(), Map.of(), Map.of());

  /** How a LocalQueue's new workloads are held: wait, or run only on idle capacity. */
  public record Hold(String message, boolean idleCapacityOnly) {}

  /** Budgets that all make their workloads wait. */
  public SpentBudgets(
      Map<String, String> localQueues,
      Map<String, String> clusterQueues,
      Map<String, String> costCentres) {
    this(localQueues, clusterQueues, costCentres, Set.of());
  }

  public SpentBudgets {
    localQueues = Map.copyOf(localQueues);
    clusterQueues = Map.copyOf(clusterQueues);
    costCentres = Map.copyOf(costCentres);
    onIdleCapacity = Set.copyOf(onIdleCapacity);
  }

  /**
   * Why a LocalQueue's new workloads wait, or null when none of its budgets is spent. The
   * LocalQueue's own budget is named first, then its ClusterQueue's, then its cost centre's.
   */
  public String messageFor(String localQueueKey, String clusterQueue, String costCentre) {
    Hold hold = holdFor(localQueueKey, clusterQueue, costCentre);
    return hold == null ? null : hold.message();
  }

  /**
   * How a LocalQueue's new workloads are held, or null when none of its budgets is spent. A spent
   * budget that makes them wait wins over those that let them run on idle capacity, and is the one
   * named; otherwise the first in the order of {@link #messageFor}.
   */
  public Hold holdFor(String localQueueKey, String clusterQueue, String costCentre) {
    String[] spent = {
      localQueues.get(localQueueKey),
      clusterQueues.get(clusterQueue),
      costCentre == null ? null : costCentres.get(costCentre)
    };
    String first = null;
    for (String m : spent) {
      if (m != null && !onIdleCapacity.contains(m)) {
        return new Hold(m, false);
      }
      if (first == null) {
        first = m;
      }
    }
    return first == null ? null : new Hold(first, true);
  }
}
