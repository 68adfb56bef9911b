package dev.berth.engine;

/** Reasons of the Evicted condition that the engine asks for. */
public enum EvictionReason {
  Preempted,
  ClusterQueueStopped,
  LocalQueueStopped,
  /**
   * An admission the engine did not decide was recorded and left its cohort tree over quota (see
   * {@link AdmissionEngine#recordAdmitted}): the newest admissions go.
   */
  OverQuota
}
