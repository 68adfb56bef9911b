package dev.berth.api.v1beta1;

import io.fabric8.generator.annotation.Required;

/** Whether a ClusterQueue orders its LocalQueues by their recent usage (admission fair sharing). */
public class AdmissionScope {
  @Required public AdmissionMode admissionMode;

  /** Kueue's admission modes. */
  public enum AdmissionMode {
    /** The LocalQueue with the least decayed recent usage for its weight goes first. */
    UsageBasedAdmissionFairSharing,
    /** The ClusterQueue's queueing strategy alone orders its workloads. */
    NoAdmissionFairSharing
  }
}
