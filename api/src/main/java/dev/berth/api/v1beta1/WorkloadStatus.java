package dev.berth.api.v1beta1;

import dev.berth.api.crd.Items;
import dev.berth.api.crd.ListType;
import java.util.List;

/** The admission decision and the workload's life since; written only by the operator. */
public class WorkloadStatus {
  public Admission admission;
  public RequeueState requeueState;
  @Items(max = 16)
  @ListType(value = "map", keys = "type")
  public List<Condition> conditions;
  public List<AdmissionCheckState> admissionChecks;
  /** Requested resources × occupied time of the runs that ended (the usage ledger). */
  public WorkloadUsage usage;

  /** How often the workload went back to its queue, and when it may be tried again. */
  public static class RequeueState {
    public Integer count;
    public String requeueAt;
  }

  /** The state of one admission check for this workload. */
  public static class AdmissionCheckState {
    public String name;
    /** Pending, Ready, Retry or Rejected. */
    public String state;

    public String message;
    public String lastTransitionTime;
  }
}
