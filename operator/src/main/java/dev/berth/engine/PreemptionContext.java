package dev.berth.engine;

import dev.berth.engine.quota.FlavorResources;
import dev.berth.engine.quota.QuotaNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** What a PreemptionPlanner may read: the preemptor, and the admitted workloads of its tree. */
public final class PreemptionContext {
  /** A read-only view of one admitted workload (a preemption candidate). */
  public record Candidate(String uid, String clusterQueue, int priority, long admittedAt, Admission admission) {}

  private final Entry preemptor;
  private final Map<String, ClusterQueueState> queues;
  private final FlavorResources frs;

  PreemptionContext(Entry preemptor, Map<String, ClusterQueueState> queues, FlavorResources frs) {
    this.preemptor = preemptor;
    this.queues = queues;
    this.frs = frs;
  }

  public Entry preemptor() {
    return preemptor;
  }

  public QuotaNode node() {
    return preemptor.queue.node;
  }

  public FlavorResources flavorResources() {
    return frs;
  }

  /** Admitted workloads of every ClusterQueue in the preemptor's cohort tree. */
  public List<Candidate> candidates() {
    List<Candidate> out = new ArrayList<>();
    QuotaNode root = node().root();
    for (String cq : root.clusterQueues()) {
      for (AdmittedWorkload a : queues.get(cq).admitted.values()) {
        out.add(new Candidate(a.workload.uid(), cq, a.workload.priority(), a.admission.admittedAt(), a.admission));
      }
    }
    return out;
  }
}
