package dev.berth.engine.model;

/** Kubernetes taint effects; only NoSchedule and NoExecute keep a workload off a flavor. */
public enum TaintEffect {
  NoSchedule,
  PreferNoSchedule,
  NoExecute;

  /** Whether a taint with this effect must be tolerated for pods to land on the flavor's nodes. */
  public boolean repels() {
    return this != PreferNoSchedule;
  }
}
