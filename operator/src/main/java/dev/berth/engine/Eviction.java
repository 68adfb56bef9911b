package dev.berth.engine;

/**
 * A request to evict an admitted workload. The engine keeps its quota until the operator reports
 * the eviction done ({@link AdmissionEngine#workloadEvicted}), as pods may still be running. For a
 * preemption ({@link EvictionReason#Preempted}) {@code preemptionReason} and {@code preemptorUid}
 * say why and for whom; both are null for any other eviction.
 */
public record Eviction(
    String workloadUid,
    String clusterQueue,
    EvictionReason reason,
    String message,
    PreemptionReason preemptionReason,
    String preemptorUid) {

  /** An eviction that is not a preemption. */
  public Eviction(String workloadUid, String clusterQueue, EvictionReason reason, String message) {
    this(workloadUid, clusterQueue, reason, message, null, null);
  }
}
