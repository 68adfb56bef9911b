package dev.berth.operator.admission;

import dev.berth.engine.AdmissionEngine;
import dev.berth.engine.PodSetAssignment;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * Which Workloads may hold quota through each LocalQueue, so that a LocalQueue's usage is summed
 * from the engine's admissions of its own workloads, not from a scan of every Workload. A UID stays
 * listed until the engine no longer holds an admission for it. Loop thread only.
 */
final class LocalQueueHolders {
  private final Map<String, Set<String>> byLocalQueue = new HashMap<>();

  void add(String localQueueKey, String uid) {
    byLocalQueue.computeIfAbsent(localQueueKey, k -> new LinkedHashSet<>()).add(uid);
  }

  /** flavor → resource → usage (canonical units) of the engine's admissions through the queue. */
  Map<String, Map<String, Long>> usage(String localQueueKey, AdmissionEngine engine) {
    Map<String, Map<String, Long>> out = new LinkedHashMap<>();
    Set<String> uids = byLocalQueue.get(localQueueKey);
    if (uids == null) {
      return out;
    }
    for (Iterator<String> it = uids.iterator(); it.hasNext(); ) {
      var admission = engine.admission(it.next());
      if (admission.isEmpty() || !localQueueKey.equals(key(admission.get()))) {
        it.remove();
        continue;
      }
      for (PodSetAssignment ps : admission.get().podSetAssignments()) {
        ps.resourceUsage()
            .forEach(
                (resource, amount) -> {
                  String flavor = ps.flavors().get(resource);
                  if (flavor != null) {
                    out.computeIfAbsent(flavor, f -> new LinkedHashMap<>())
                        .merge(resource, amount, Long::sum);
                  }
                });
      }
    }
    if (uids.isEmpty()) {
      byLocalQueue.remove(localQueueKey);
    }
    return out;
  }

  static String key(dev.berth.engine.Admission admission) {
    return ClusterState.key(admission.namespace(), admission.localQueue());
  }
}
