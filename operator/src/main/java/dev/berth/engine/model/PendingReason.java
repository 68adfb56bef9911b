package dev.berth.engine.model;

/** Reason of a pending workload's QuotaReserved=False condition. */
public enum PendingReason {
  /** It could fit once quota frees up. */
  WaitingForQuota,
  /** It can never fit, even with nothing else admitted in the cluster. */
  ExceedsMaxQuota,
  /** No flavor of the ClusterQueue matches its node labels or tolerates the flavor's taints. */
  NoMatchingFlavor,
  /** Victims were chosen; it stays at the head until their quota is released. */
  WaitingForPreemptedWorkloads,
  /** Quota fits, but no set of topology domains of the flavor's nodes can hold its pods now. */
  TopologyPlacementFailed,
  /** waitForPodsReady blockAdmission: an admitted workload's pods are not all ready yet. */
  WaitingForPodsReady,
  /**
   * A Budget of its LocalQueue, ClusterQueue or cost centre is spent for the current window; it
   * waits for the next one.
   */
  BudgetExhausted,
  /**
   * Its LocalQueue or ClusterQueue is missing, stopped or inactive, or the namespace does not
   * match.
   */
  Inadmissible
}
