package dev.berth.engine;

import dev.berth.engine.quota.FlavorResources;
import dev.berth.engine.quota.QuotaNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a PreemptionPlanner may read: the preemptor, and the admitted workloads of its tree that may
 * still be chosen (not already being evicted, not admitted in this very cycle).
 */
public final class PreemptionContext {
  /** A read-only view of one admitted workload (a preemption candidate). */
  public record Candidate(
      String uid, String clusterQueue, int priority, long admittedAt, Admission admission) {}

  private final Entry preemptor;
  private final Map<String, ClusterQueueState> queues;
  private final FlavorResources frs;
  private final Set<String> admittedThisCycle;
  private final List<ClusterQueueState> treeQueues;
  private final long now;
  private boolean leftOutFresh;
  private long protectedUntil = Long.MAX_VALUE;

  PreemptionContext(
      Entry preemptor,
      Map<String, ClusterQueueState> queues,
      List<ClusterQueueState> treeQueues,
      FlavorResources frs,
      Set<String> admittedThisCycle,
      long now) {
    this.preemptor = preemptor;
    this.now = now;
    this.treeQueues = treeQueues;
    this.queues = queues;
    this.frs = frs;
    this.admittedThisCycle = admittedThisCycle;
  }

  /** For a preemptor of this cycle, over the quota store's queues and its cohort tree. */
  static PreemptionContext of(
      Entry preemptor, QuotaStore quota, Set<String> admittedThisCycle, long now) {
    return new PreemptionContext(
        preemptor,
        quota.queues(),
        quota.treeQueues(preemptor.queue),
        quota.flavorResources(),
        admittedThisCycle,
        now);
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

  /** The cycle's time (epoch millis). */
  public long now() {
    return now;
  }

  /** The checkpoint window of a ClusterQueue's workloads (its preemption policy's). */
  long checkpointWindowMillis(String clusterQueue) {
    ClusterQueueState q = queues.get(clusterQueue);
    return q == null || q.spec == null
        ? dev.berth.engine.model.PreemptionPolicy.DEFAULT_CHECKPOINT_WINDOW_MILLIS
        : q.spec.preemption().checkpointWindowMillis();
  }

  /** Admitted workloads of every ClusterQueue in the preemptor's cohort tree that may be chosen. */
  public List<Candidate> candidates() {
    List<Candidate> out = new ArrayList<>();
    for (AdmittedWorkload a : admittedInTree()) {
      out.add(
          new Candidate(
              a.workload.uid(),
              a.clusterQueue,
              a.workload.priority(),
              a.admission.admittedAt(),
              a.admission));
    }
    return out;
  }

  /** The engine's own records of {@link #candidates()}, for planners of this package. */
  List<AdmittedWorkload> admittedInTree() {
    List<AdmittedWorkload> out = new ArrayList<>();
    for (ClusterQueueState cq : treeQueues) {
      for (AdmittedWorkload a : cq.admitted.values()) {
        if (choosable(a)) {
          out.add(a);
        }
      }
    }
    return out;
  }

  /** The ClusterQueues of the preemptor's cohort tree. */
  List<ClusterQueueState> treeQueues() {
    return treeQueues;
  }

  /**
   * Whether an admitted workload may still be chosen (not being evicted, not admitted this cycle).
   */
  /**
   * Whether another queue's workload is still within its queue's minimum runtime, so that it may
   * not be taken for this preemptor; notes when the earliest such protection ends.
   */
  boolean protectedFromOtherQueues(AdmittedWorkload a) {
    ClusterQueueState q = queues.get(a.clusterQueue);
    long minimum = q == null || q.spec == null ? 0 : q.spec.minimumRuntimeMillis();
    long until = a.admission.admittedAt() + minimum;
    if (minimum > 0 && now < until) {
      protectedUntil = Math.min(protectedUntil, until);
      return true;
    }
    return false;
  }

  /**
   * When the first candidate left out for its minimum runtime may be taken, or {@link
   * Long#MAX_VALUE} when none was left out.
   */
  long protectedUntil() {
    return protectedUntil;
  }

  boolean choosable(AdmittedWorkload a) {
    if (a.evictionRequested) {
      return false;
    }
    if (!admittedThisCycle.isEmpty() && admittedThisCycle.contains(a.workload.uid())) {
      leftOutFresh = true;
      return false;
    }
    return true;
  }

  /**
   * Whether a workload admitted earlier in this cycle was left out of the candidates (then the
   * preemptor looks again next cycle, when it is no longer fresh).
   */
  boolean leftOutFreshAdmissions() {
    return leftOutFresh;
  }

  ClusterQueueState queue(String name) {
    return queues.get(name);
  }

  /** The reason of a victim chosen by a planner that does not give one. */
  PreemptionReason defaultReason(String uid) {
    ClusterQueueState own = preemptor.queue;
    if (own.admitted.containsKey(uid)) {
      return PreemptionReason.InClusterQueue;
    }
    return preemptor.borrows()
        ? PreemptionReason.InCohortReclaimWhileBorrowing
        : PreemptionReason.InCohortReclamation;
  }
}
