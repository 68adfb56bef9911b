package dev.berth.engine;

import dev.berth.engine.quota.QuotaNode;
import dev.berth.engine.quota.QuotaTree;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * After an admission the engine did not decide is recorded (another leader's write, or one whose
 * outcome was unknown and was rolled back): whether its ClusterQueue and every cohort above it are
 * still within quota, and if not, which admissions to evict, newest first, so that they are again.
 * Admissions already being evicted count as gone. The quota tree is left as it was found.
 */
final class OverQuotaCheck {
  private OverQuotaCheck() {}

  /** The workloads to evict, newest admission first; empty when the tree is within quota. */
  static List<AdmittedWorkload> victims(QuotaStore quota, AdmittedWorkload observed) {
    ClusterQueueState cq = quota.find(observed.clusterQueue);
    if (cq.node == null || !cq.node.active()) {
      return List.of();
    }
    List<AdmittedWorkload> leaving = new ArrayList<>();
    List<AdmittedWorkload> candidates = new ArrayList<>();
    for (ClusterQueueState q : quota.treeQueues(cq)) {
      for (AdmittedWorkload a : q.admitted.values()) {
        (a.evictionRequested ? leaving : candidates).add(a);
      }
    }
    for (AdmittedWorkload a : leaving) {
      remove(quota, a);
    }
    List<AdmittedWorkload> taken = new ArrayList<>();
    if (!within(cq.node, observed.frs)) {
      candidates.sort(
          Comparator.comparingLong((AdmittedWorkload a) -> a.admission.admittedAt())
              .thenComparing(a -> a.workload.uid())
              .reversed());
      for (AdmittedWorkload a : candidates) {
        if (!sharesAny(a, observed)) {
          continue;
        }
        remove(quota, a);
        taken.add(a);
        if (within(cq.node, observed.frs)) {
          break;
        }
      }
    }
    for (AdmittedWorkload a : taken) {
      restore(quota, a);
    }
    for (AdmittedWorkload a : leaving) {
      restore(quota, a);
    }
    return taken;
  }

  /** Every node from the ClusterQueue up to its root can still take zero or more. */
  private static boolean within(QuotaNode node, int[] frs) {
    for (QuotaNode n = node; n != null; n = n.parent()) {
      for (int fr : frs) {
        if (QuotaTree.available(n, fr) < 0) {
          return false;
        }
      }
    }
    return true;
  }

  private static boolean sharesAny(AdmittedWorkload a, AdmittedWorkload observed) {
    for (int x : a.frs) {
      for (int y : observed.frs) {
        if (x == y) {
          return true;
        }
      }
    }
    return false;
  }

  private static void remove(QuotaStore quota, AdmittedWorkload a) {
    QuotaNode n = quota.find(a.clusterQueue).node;
    for (int k = 0; k < a.frs.length; k++) {
      QuotaTree.removeUsage(n, a.frs[k], a.usage[k]);
    }
  }

  private static void restore(QuotaStore quota, AdmittedWorkload a) {
    QuotaNode n = quota.find(a.clusterQueue).node;
    for (int k = 0; k < a.frs.length; k++) {
      QuotaTree.addUsage(n, a.frs[k], a.usage[k]);
    }
  }
}
