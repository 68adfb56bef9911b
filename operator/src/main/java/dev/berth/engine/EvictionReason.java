package dev.berth.engine;

/** Reasons of the Evicted condition that the engine asks for. */
public enum EvictionReason {
  Preempted,
  ClusterQueueStopped,
  LocalQueueStopped
}
