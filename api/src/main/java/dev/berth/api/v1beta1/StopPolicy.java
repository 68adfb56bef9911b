package dev.berth.api.v1beta1;

/** Stopping a queue: Hold admits nothing new; HoldAndDrain also evicts what is admitted. */
public enum StopPolicy {
  None,
  Hold,
  HoldAndDrain
}
