package dev.berth.engine.model;

/** How a ClusterQueue treats a head that does not fit. */
public enum QueueingStrategy {
  /** The head that does not fit blocks the queue. */
  StrictFIFO,
  /** The head that does not fit is parked and the next workload becomes the head. */
  BestEffortFIFO
}
