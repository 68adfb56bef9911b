package dev.berth.engine;

import java.util.List;

/**
 * Step 5 seam: picks victims for an entry whose flavor assignment is in Preempt mode, by
 * simulating removals on the snapshot; it never writes. The cycle requests the evictions, skips
 * an entry whose victims overlap an earlier entry's, and keeps the preemptor at the head of its
 * queue until the victims' quota is released.
 */
public interface PreemptionPlanner {
  /** UIDs of admitted workloads to evict so that the preemptor fits; empty when there are none. */
  List<String> victims(PreemptionContext context);
}
