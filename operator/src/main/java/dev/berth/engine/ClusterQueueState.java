package dev.berth.engine;

import dev.berth.engine.flavor.CompiledQueue;
import dev.berth.engine.model.ClusterQueue;
import dev.berth.engine.model.Explanation;
import dev.berth.engine.model.PendingReason;
import dev.berth.engine.queue.PendingQueue;
import dev.berth.engine.quota.QuotaNode;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * A ClusterQueue as the engine tracks it, one record shared by the two stores (as Kueue keeps a
 * ClusterQueue in its queue manager and another in its cache), each field changed by one of them:
 * the {@link QuotaStore}'s spec (null while unknown or deleted), compiled flavors, node in the
 * quota tree, usage (the truth, shared with the node), admitted workloads, terminating flag and
 * waiting preemptor; the {@link PendingQueues}' pending queue and its dirty, blocked and waking
 * flags.
 */
final class ClusterQueueState {
  final String name;
  ClusterQueue spec;
  CompiledQueue compiled;
  QuotaNode node;
  long[] usage = new long[0];
  final PendingQueue queue;
  final Map<String, AdmittedWorkload> admitted = new LinkedHashMap<>();

  /** Priorities of the admitted workloads with their counts: lets preemption skip whole queues. */
  private final TreeMap<Integer, Integer> admittedPriorities = new TreeMap<>();

  private int lowestAdmitted = Integer.MAX_VALUE;

  /** In the engine's list of queues to look at in the next cycle. */
  boolean dirty;

  /** StrictFIFO head did not fit, or a preemptor waits for its victims: nothing behind may go. */
  boolean blocked;

  /** In its tree's wake list: a release in the tree brings its parked buckets back. */
  boolean waking;

  /** Being deleted: admits nothing new; what it holds finishes. */
  boolean terminating;

  /**
   * Until when (epoch millis) it admits nothing that borrows: quota it borrowed was just reclaimed
   * (its spec's borrowBackoffMillis after the reclaim was seen). Not kept across restarts.
   */
  long borrowingPausedUntil;

  /** When each eviction its preemptors asked for was asked, oldest first (its preemption limit). */
  final java.util.ArrayDeque<Long> preemptedAt = new java.util.ArrayDeque<>();

  /** How many of its admitted workloads run on idle capacity ({@link QuotaStore}). */
  int onIdleCapacity;

  /** The preemptor of this queue waiting for its victims, which keeps its place; or null. */
  PendingPreemption preemption;

  ClusterQueueState(String name) {
    this.name = name;
    this.queue = new PendingQueue(name);
  }

  /** Why the whole ClusterQueue admits nothing, or null when it may admit. */
  Explanation inadmissible() {
    if (spec == null) {
      return Explanation.of(PendingReason.Inadmissible, "ClusterQueue " + name + " doesn't exist");
    }
    if (compiled != null && compiled.missingFlavor() != null) {
      return Explanation.of(
          PendingReason.Inadmissible,
          "ClusterQueue "
              + name
              + " is inactive: flavor "
              + compiled.missingFlavor()
              + " doesn't exist");
    }
    if (node == null || !node.active()) {
      String why = node == null ? "not yet built" : node.inactiveMessage();
      return Explanation.of(
          PendingReason.Inadmissible, "ClusterQueue " + name + " is inactive: " + why);
    }
    if (terminating) {
      return Explanation.of(
          PendingReason.Inadmissible,
          "ClusterQueue " + name + " is terminating: it admits nothing new");
    }
    if (spec.stopPolicy().stopped()) {
      return Explanation.of(
          PendingReason.Inadmissible,
          "ClusterQueue " + name + " is stopped (" + spec.stopPolicy() + ")");
    }
    return null;
  }

  boolean admissible() {
    return spec != null
        && node != null
        && node.active()
        && (compiled == null || compiled.missingFlavor() == null)
        && !terminating
        && !spec.stopPolicy().stopped();
  }

  /** The lowest priority of an admitted workload, or Integer.MAX_VALUE when none is admitted. */
  int lowestAdmittedPriority() {
    return lowestAdmitted;
  }

  void admittedPriorityAdded(int priority) {
    admittedPriorities.merge(priority, 1, Integer::sum);
    lowestAdmitted = Math.min(lowestAdmitted, priority);
  }

  void admittedPriorityRemoved(int priority) {
    admittedPriorities.computeIfPresent(priority, (k, n) -> n == 1 ? null : n - 1);
    lowestAdmitted =
        admittedPriorities.isEmpty() ? Integer.MAX_VALUE : admittedPriorities.firstKey();
  }

  long usage(int fr) {
    return fr < usage.length ? usage[fr] : 0;
  }
}
