package dev.berth.api.v1beta1;

/**
 * What a spent budget does to the new workloads it names. {@link #Wait}, the default: they wait
 * until the next window. {@link #RunOnIdleCapacity}: they may still be admitted, but only onto
 * quota that no workload within its budget takes or waits for, never by preempting, and they are
 * then every preemptor's first victim.
 */
public enum BudgetWhenExhausted {
  Wait,
  RunOnIdleCapacity
}
