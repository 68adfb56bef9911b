package dev.berth.api.v1beta1;

import dev.berth.api.crd.DateTime;
import dev.berth.api.crd.Items;
import dev.berth.api.crd.ListType;
import dev.berth.api.crd.MaxLength;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import java.util.List;

/** The admission decision and the workload's life since; written only by the operator. */
public class WorkloadStatus {
  public Admission admission;
  public RequeueState requeueState;

  @Items(max = 16)
  @ListType(value = "map", keys = "type")
  public List<Condition> conditions;

  /** One entry per admission check of the ClusterQueue that applies to the assigned flavors. */
  @Items(max = 8)
  @ListType(value = "map", keys = "name")
  public List<AdmissionCheckState> admissionChecks;

  /** Seconds the workload ran admitted before its current admission (max execution time). */
  public Integer accumulatedPastExecutionTimeSeconds;

  /** Requested resources × occupied time of the runs that ended (the usage ledger). */
  public WorkloadUsage usage;

  /** How often the workload went back to its queue, and when it may be tried again. */
  public static class RequeueState {
    public Integer count;

    @DateTime
    @MaxLength(64)
    public String requeueAt;
  }

  /** Annotations a check's controller adds to one podSet's pods at start. */
  public static class PodSetUpdate {
    @Required
    @MaxLength(63)
    public String name;

    /** Annotations for the pod template: few, and each value within a pod annotation's use. */
    @Items(max = 64)
    @MaxLength(4096)
    public java.util.Map<String, String> annotations;

    public PodSetUpdate() {}

    public PodSetUpdate(String name, java.util.Map<String, String> annotations) {
      this.name = name;
      this.annotations = annotations;
    }
  }

  /** The state of one admission check for this workload. */
  public static class AdmissionCheckState {
    @Required
    @Pattern(Berth.DNS_SUBDOMAIN)
    @MaxLength(253)
    public String name;

    /** Pending, Ready, Retry or Rejected; written by the check's controller. */
    @Required
    @Pattern("^(Pending|Ready|Retry|Rejected)$")
    @MaxLength(8)
    public String state;

    @MaxLength(32768)
    public String message;

    @DateTime
    @MaxLength(64)
    public String lastTransitionTime;

    /**
     * What the check's controller adds to a podSet's pod template when the workload starts (the
     * built-in provisioning check: the annotations that make the pods consume the
     * ProvisioningRequest's booked capacity); the template the user wrote is restored on eviction.
     */
    @Items(max = 8)
    @ListType(value = "map", keys = "name")
    public List<PodSetUpdate> podSetUpdates;

    public AdmissionCheckState() {}

    public AdmissionCheckState(String name, String state, String message, String at) {
      this.name = name;
      this.state = state;
      this.message = message;
      this.lastTransitionTime = at;
    }
  }
}
