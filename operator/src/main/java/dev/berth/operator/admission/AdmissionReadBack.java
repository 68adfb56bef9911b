package dev.berth.operator.admission;

import dev.berth.api.v1beta1.Workload;
import dev.berth.engine.Admission;
import dev.berth.engine.PodSetAssignment;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a Workload read back says about an admission write whose outcome is unknown (timeout,
 * connection reset, 5xx: the API server may have applied it). Deciding this before any rollback
 * keeps the engine from giving away quota that a running workload holds.
 */
enum AdmissionReadBack {
  /** The stored Workload carries this admission: the write was applied. */
  WRITTEN,
  /** The stored Workload does not carry it: the write was not applied (or another replaced it). */
  NOT_WRITTEN,
  /** The Workload is gone. */
  GONE;

  /**
   * @param decidedOn the version the admission was written against
   * @param read the Workload as read back now, or null when it does not exist
   */
  static AdmissionReadBack of(Admission admission, Workload decidedOn, Workload read) {
    if (read == null) {
      return GONE;
    }
    boolean changed =
        !Objects.equals(
            read.getMetadata().getResourceVersion(), decidedOn.getMetadata().getResourceVersion());
    if (changed && StatusConditions.hasQuotaReserved(read) && carries(read, admission)) {
      return WRITTEN;
    }
    return NOT_WRITTEN;
  }

  /** Same ClusterQueue, and the same flavor for every resource of every podSet. */
  private static boolean carries(Workload read, Admission admission) {
    var stored = read.getStatus().admission;
    if (!admission.clusterQueue().equals(stored.clusterQueue) || stored.podSetAssignments == null) {
      return false;
    }
    Map<String, Map<String, String>> flavors = new HashMap<>();
    for (var ps : stored.podSetAssignments) {
      flavors.put(ps.name, ps.flavors == null ? Map.of() : ps.flavors);
    }
    List<PodSetAssignment> ours = admission.podSetAssignments();
    if (flavors.size() != ours.size()) {
      return false;
    }
    for (PodSetAssignment ps : ours) {
      if (!ps.flavors().equals(flavors.get(ps.name()))) {
        return false;
      }
    }
    return true;
  }
}
