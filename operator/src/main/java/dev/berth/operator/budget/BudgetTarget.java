package dev.berth.operator.budget;

import dev.berth.engine.usage.UsageOwner;

/**
 * Whose usage a budget charges: one LocalQueue ("namespace/name"), one ClusterQueue, or one cost
 * centre (as the usage ledger bills it: the Workload's label berth.dev/cost-centre, else its
 * Namespace's).
 */
public record BudgetTarget(Kind kind, String name) {
  public enum Kind {
    LocalQueue,
    ClusterQueue,
    CostCentre
  }

  public boolean charges(UsageOwner owner) {
    if (owner == null) {
      return false;
    }
    return switch (kind) {
      case LocalQueue -> name.equals(owner.namespace() + "/" + owner.localQueue());
      case ClusterQueue -> name.equals(owner.clusterQueue());
      case CostCentre -> name.equals(owner.costCentre());
    };
  }

  /** As the message names it: "LocalQueue team-a/train". */
  @Override
  public String toString() {
    return kind + " " + name;
  }
}
