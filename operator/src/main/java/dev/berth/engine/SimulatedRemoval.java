package dev.berth.engine;

import dev.berth.engine.quota.QuotaNode;
import dev.berth.engine.quota.QuotaTree;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * What both preemption planners do on the quota tree: take a victim's usage away to see whether the
 * preemptor fits, put it back, give back victims that turn out unneeded, and name the rest. The
 * tree is left as it was found.
 */
final class SimulatedRemoval {
  private SimulatedRemoval() {}

  static void remove(PreemptionContext ctx, AdmittedWorkload w) {
    QuotaNode n = ctx.queue(w.clusterQueue).node;
    for (int k = 0; k < w.frs.length; k++) {
      QuotaTree.removeUsage(n, w.frs[k], w.usage[k]);
    }
  }

  static void restore(PreemptionContext ctx, AdmittedWorkload w) {
    QuotaNode n = ctx.queue(w.clusterQueue).node;
    for (int k = 0; k < w.frs.length; k++) {
      QuotaTree.addUsage(n, w.frs[k], w.usage[k]);
    }
  }

  /**
   * Gives back, newest taken first, every victim the preemptor can do without: one is unneeded
   * when, with it restored, {@code stillFits} holds. The last one taken is always needed (without
   * it the preemptor did not fit even with all the others removed).
   */
  static void giveBackUnneeded(
      PreemptionContext ctx, List<AdmittedWorkload> taken, IndexedCheck stillFits) {
    for (int i = taken.size() - 2; i >= 0; i--) {
      AdmittedWorkload w = taken.get(i);
      restore(ctx, w);
      if (stillFits.test(i)) {
        taken.remove(i);
      } else {
        remove(ctx, w);
      }
    }
  }

  /**
   * Restores every victim and names them: own-queue victims InClusterQueue, others {@code
   * cohortReason}.
   */
  static List<PreemptionPlanner.Victim> restoreAndName(
      PreemptionContext ctx,
      List<AdmittedWorkload> taken,
      String ownQueue,
      PreemptionReason cohortReason,
      boolean fits) {
    for (AdmittedWorkload w : taken) {
      restore(ctx, w);
    }
    if (!fits) {
      return List.of();
    }
    List<PreemptionPlanner.Victim> out = new ArrayList<>(taken.size());
    for (AdmittedWorkload w : taken) {
      out.add(
          new PreemptionPlanner.Victim(
              w.workload.uid(),
              w.clusterQueue.equals(ownQueue) ? PreemptionReason.InClusterQueue : cohortReason));
    }
    return out;
  }

  /** A check that may look at the position of the victim being given back. */
  interface IndexedCheck {
    boolean test(int index);

    static IndexedCheck of(BooleanSupplier check) {
      return i -> check.getAsBoolean();
    }
  }
}
