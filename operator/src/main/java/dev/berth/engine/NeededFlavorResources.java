package dev.berth.engine;

import dev.berth.engine.quota.QuotaNode;

/**
 * What both preemption planners ask of a candidate about the flavor-resources the preemptor needs
 * ({@code frs[i]} with {@code needed[i]}): whether it uses any of them, and whether its queue
 * borrows on one it uses, the condition for taking a workload from another queue.
 */
final class NeededFlavorResources {
  private NeededFlavorResources() {}

  /**
   * Whether w uses a needed flavor-resource: otherwise taking it frees nothing the preemptor needs.
   */
  static boolean usesNeeded(AdmittedWorkload w, int[] frs, boolean[] needed) {
    for (int i = 0; i < frs.length; i++) {
      if (needed[i] && amountOf(w, frs[i]) > 0) {
        return true;
      }
    }
    return false;
  }

  /** Whether the queue of {@code node} uses more than its nominal quota of a needed one. */
  static boolean borrowsOnNeeded(QuotaNode node, int[] frs, boolean[] needed) {
    for (int i = 0; i < frs.length; i++) {
      if (needed[i] && node.usage(frs[i]) > node.nominal(frs[i])) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether the queue of {@code node} borrows (uses more than its nominal quota) on a needed
   * flavor-resource that w uses: only then may w be taken from it for another queue.
   */
  static boolean borrowsOnNeeded(QuotaNode node, AdmittedWorkload w, int[] frs, boolean[] needed) {
    for (int i = 0; i < frs.length; i++) {
      if (needed[i] && node.usage(frs[i]) > node.nominal(frs[i]) && amountOf(w, frs[i]) > 0) {
        return true;
      }
    }
    return false;
  }

  /** What w uses of flavor-resource {@code fr}; 0 if none. */
  static long amountOf(AdmittedWorkload w, int fr) {
    for (int k = 0; k < w.frs.length; k++) {
      if (w.frs[k] == fr) {
        return w.usage[k];
      }
    }
    return 0;
  }
}
