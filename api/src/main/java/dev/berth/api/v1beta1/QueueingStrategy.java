package dev.berth.api.v1beta1;

/** StrictFIFO: a head that does not fit blocks its queue. BestEffortFIFO: it is set aside. */
public enum QueueingStrategy {
  StrictFIFO,
  BestEffortFIFO
}
