package dev.berth.engine;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Evictions asked for and not yet seen done, by workload UID: returned by every cycle until the
 * operator reports the Workload shows Evicted or its quota is released, as Kueue's preemption
 * expectations do. A lost or refused write is thus sent again.
 */
final class EvictionExpectations {
  private final Map<String, Eviction> expected = new LinkedHashMap<>();

  /** Evictions first asked for since the last cycle result (for counting, not for writing). */
  private final List<Eviction> fresh = new ArrayList<>();

  /** Expects the eviction; false when one was already expected for that workload. */
  boolean expect(Eviction eviction) {
    boolean added = expected.putIfAbsent(eviction.workloadUid(), eviction) == null;
    if (added) {
      fresh.add(eviction);
    }
    return added;
  }

  /** The eviction is done or needs no more asking (shown Evicted, quota released). */
  void forget(String uid) {
    expected.remove(uid);
  }

  /** Undoes expectations an aborted cycle added: they were never asked for. */
  void forgetAll(Collection<String> uids) {
    expected.keySet().removeAll(uids);
    fresh.removeIf(ev -> !expected.containsKey(ev.workloadUid()));
  }

  /** Every eviction asked for and not yet seen done, oldest first. */
  List<Eviction> outstanding() {
    return List.copyOf(expected.values());
  }

  /** The evictions first asked for since the last call. */
  List<Eviction> takeFresh() {
    List<Eviction> out = List.copyOf(fresh);
    fresh.clear();
    return out;
  }
}
