package dev.berth.engine;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A preemptor waiting for its victims. The part of its request that was already free when it chose
 * them is reserved on its own ClusterQueue, and the quota of victims already released stays where
 * it was, so nobody else can take any of it; when the last victim is released everything is freed
 * at once and the preemptor goes first in the next cycle.
 */
final class PendingPreemption {
  final String preemptorUid;
  final ClusterQueueState queue;

  /** Victims whose quota is not yet released. */
  final Set<String> outstanding = new LinkedHashSet<>();

  /** Released victims whose quota is still reserved for the preemptor. */
  final List<AdmittedWorkload> held = new ArrayList<>();

  /** Flavor-resources and amounts reserved on the preemptor's own ClusterQueue. */
  int[] reservedFrs = new int[0];

  long[] reserved = new long[0];

  /** Every victim is gone: the preemptor gets the first try at the freed quota. */
  boolean ready;

  PendingPreemption(String preemptorUid, ClusterQueueState queue) {
    this.preemptorUid = preemptorUid;
    this.queue = queue;
  }
}
