package dev.berth.engine.model;

/** stopPolicy of a ClusterQueue or LocalQueue. */
public enum StopPolicy {
  None,
  /** Admit nothing new. */
  Hold,
  /** Admit nothing new and evict what is admitted. */
  HoldAndDrain;

  public boolean stopped() {
    return this != None;
  }
}
