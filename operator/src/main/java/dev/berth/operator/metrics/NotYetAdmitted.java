package dev.berth.operator.metrics;

import dev.berth.engine.Admission;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The workloads that hold quota but are not admitted yet (waiting for their admission checks, or
 * for the Admitted write after them), counted per ClusterQueue and LocalQueue, with the quota they
 * hold per flavor and resource: what separates Kueue's reservation figures (every workload with
 * quota) from its admitted and usage ones.
 */
final class NotYetAdmitted {
  private final Map<String, Integer> perClusterQueue = new HashMap<>();
  private final Map<String, Integer> perLocalQueue = new HashMap<>();
  private final Map<String, Long> held = new HashMap<>();

  /**
   * @param uids the workloads whose checks are not all Ready or whose Admitted is not written
   * @param admissions what each of them holds, as this replica's engine admitted it
   */
  NotYetAdmitted(Collection<String> uids, Function<String, Optional<Admission>> admissions) {
    for (String uid : List.copyOf(uids)) {
      Admission admission = admissions.apply(uid).orElse(null);
      if (admission == null) {
        continue; // released, or not held by this engine
      }
      perClusterQueue.merge(admission.clusterQueue(), 1, Integer::sum);
      perLocalQueue.merge(admission.namespace() + "/" + admission.localQueue(), 1, Integer::sum);
      for (var ps : admission.podSetAssignments()) {
        ps.resourceUsage()
            .forEach(
                (resource, amount) -> {
                  String flavor = ps.flavors().get(resource);
                  if (flavor != null) {
                    held.merge(key(admission.clusterQueue(), flavor, resource), amount, Long::sum);
                  }
                });
      }
    }
  }

  int inClusterQueue(String clusterQueue) {
    return perClusterQueue.getOrDefault(clusterQueue, 0);
  }

  int inLocalQueue(String namespace, String localQueue) {
    return perLocalQueue.getOrDefault(namespace + "/" + localQueue, 0);
  }

  /** The quota they hold in a ClusterQueue's flavor and resource, in canonical units. */
  long held(String clusterQueue, String flavor, String resource) {
    return held.getOrDefault(key(clusterQueue, flavor, resource), 0L);
  }

  private static String key(String clusterQueue, String flavor, String resource) {
    return clusterQueue + "/" + flavor + "/" + resource;
  }
}
