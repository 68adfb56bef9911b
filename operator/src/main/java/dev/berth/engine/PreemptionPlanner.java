package dev.berth.engine;

import java.util.List;

/**
 * Step 5 seam: picks victims for an entry whose flavor assignment is in Preempt mode, by simulating
 * removals on the snapshot; it never writes. The cycle requests the evictions, skips an entry whose
 * victims overlap an earlier entry's, and keeps the preemptor at the head of its queue until the
 * victims' quota is released.
 */
public interface PreemptionPlanner {
  /** A chosen victim and why it is preempted. */
  record Victim(String uid, PreemptionReason reason) {}

  /** UIDs of admitted workloads to evict so that the preemptor fits; empty when there are none. */
  List<String> victims(PreemptionContext context);

  /**
   * The victims with their reasons. By default the reason follows from where the victim runs: its
   * own ClusterQueue is InClusterQueue, another one InCohortReclamation, or
   * InCohortReclaimWhileBorrowing when the preemptor borrows.
   */
  default List<Victim> plan(PreemptionContext context) {
    return victims(context).stream()
        .map(uid -> new Victim(uid, context.defaultReason(uid)))
        .toList();
  }
}
