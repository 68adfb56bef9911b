package dev.berth.engine.model;

import java.util.Map;

/**
 * The budgets spent in their current window, as the operator worked them out from the usage ledger
 * and its clock (the engine reads neither): by LocalQueue key ("namespace/name"), ClusterQueue name
 * and cost centre, each with the message its waiting workloads get. A LocalQueue is held while any
 * of the three names it: itself, its ClusterQueue, or the cost centre of its namespace (the label
 * {@link #COST_CENTRE_LABEL}).
 */
public record SpentBudgets(
    Map<String, String> localQueues,
    Map<String, String> clusterQueues,
    Map<String, String> costCentres) {
  public static final String COST_CENTRE_LABEL = "berth.dev/cost-centre";

  public static final SpentBudgets NONE = new SpentBudgets(Map.of(), Map.of(), Map.of());

  public SpentBudgets {
    localQueues = Map.copyOf(localQueues);
    clusterQueues = Map.copyOf(clusterQueues);
    costCentres = Map.copyOf(costCentres);
  }

  /**
   * Why a LocalQueue's new workloads wait, or null when none of its budgets is spent. The
   * LocalQueue's own budget is named first, then its ClusterQueue's, then its cost centre's.
   */
  public String messageFor(String localQueueKey, String clusterQueue, String costCentre) {
    String m = localQueues.get(localQueueKey);
    if (m == null) {
      m = clusterQueues.get(clusterQueue);
    }
    if (m == null && costCentre != null) {
      m = costCentres.get(costCentre);
    }
    return m;
  }
}
