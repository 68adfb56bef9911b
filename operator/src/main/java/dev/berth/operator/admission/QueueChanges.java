package dev.berth.operator.admission;

import dev.berth.engine.Admission;
import dev.berth.engine.Eviction;
import java.util.Map;

/**
 * Which queues' status may have changed, for the queue status publisher alongside its {@link
 * ClusterView}: it hands each cycle's decisions back (their queues change with them, before the
 * writes come back) and takes what was touched since it last looked. Loop thread only.
 */
public interface QueueChanges {
  /** A cycle's admission (tentative until written): its queues' status changes with it. */
  void admissionDecided(Admission admission);

  /** A cycle's eviction: its ClusterQueue's status changes with it. */
  void evictionDecided(Eviction eviction);

  /** The queues touched since the last call (see {@link TouchedQueues}), no longer held. */
  TouchedQueues.Touched takeTouched();

  /**
   * flavor → resource → usage of the engine's admissions through a LocalQueue, from its own
   * workloads only.
   */
  Map<String, Map<String, Long>> localQueueUsage(String namespace, String name);
}
