package dev.berth.webhook.validation;

import com.fasterxml.jackson.databind.JsonNode;
import dev.berth.api.v1beta1.AdmissionCheck;
import dev.berth.api.v1beta1.ClusterQueue;
import dev.berth.api.v1beta1.Cohort;
import dev.berth.api.v1beta1.LocalQueue;
import dev.berth.api.v1beta1.ProvisioningRequestConfig;
import dev.berth.api.v1beta1.ResourceFlavor;
import dev.berth.api.v1beta1.Topology;
import dev.berth.api.v1beta1.Workload;
import dev.berth.api.v1beta1.WorkloadPriorityClass;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import java.util.List;

/**
 * The one entry point to Berth's object rules, for the webhook and for the operator (which
 * re-checks what it reads, so a resource is checked even where the webhook is off). Pure: no API
 * calls; an empty list means valid. Rules that depend on the requester are in {@link RequestGuard}.
 */
public final class BerthValidators {
  private BerthValidators() {}

  public static List<FieldError> clusterQueue(ClusterQueue cq) {
    return ClusterQueueValidator.validate(cq);
  }

  /** A ClusterQueue has no immutable fields: every change is re-evaluated by the scheduler. */
  public static List<FieldError> clusterQueueUpdate(ClusterQueue old, ClusterQueue cq) {
    return ClusterQueueValidator.validate(cq);
  }

  public static List<FieldError> budget(dev.berth.api.v1beta1.Budget budget) {
    return BudgetValidator.validate(budget);
  }

  public static List<FieldError> cohort(Cohort cohort) {
    return CohortValidator.validate(cohort);
  }

  public static List<FieldError> cohortUpdate(Cohort old, Cohort cohort) {
    return CohortValidator.validate(cohort);
  }

  public static List<FieldError> resourceFlavor(ResourceFlavor rf) {
    return ResourceFlavorValidator.validate(rf);
  }

  public static List<FieldError> resourceFlavorUpdate(ResourceFlavor old, ResourceFlavor rf) {
    return ResourceFlavorValidator.validateUpdate(old, rf);
  }

  public static List<FieldError> localQueue(LocalQueue lq) {
    return LocalQueueValidator.validate(lq);
  }

  public static List<FieldError> localQueueUpdate(LocalQueue old, LocalQueue lq) {
    return LocalQueueValidator.validateUpdate(old, lq);
  }

  public static List<FieldError> workload(Workload wl) {
    return WorkloadValidator.validate(wl);
  }

  public static List<FieldError> workloadUpdate(Workload old, Workload wl) {
    List<FieldError> errors = new java.util.ArrayList<>(WorkloadValidator.validateUpdate(old, wl));
    errors.addAll(DeviceRequestsAnnotation.validateUpdate(old, wl));
    return errors;
  }

  public static List<FieldError> workloadStatusUpdate(Workload old, Workload wl) {
    return WorkloadValidator.validateStatusUpdate(old, wl);
  }

  public static List<FieldError> workloadPriorityClass(WorkloadPriorityClass wpc) {
    return WorkloadPriorityClassValidator.validate(wpc);
  }

  public static List<FieldError> topology(Topology topology) {
    return TopologyValidator.validate(topology);
  }

  public static List<FieldError> topologyUpdate(Topology old, Topology topology) {
    return TopologyValidator.validateUpdate(old, topology);
  }

  public static List<FieldError> admissionCheck(AdmissionCheck check) {
    return AdmissionCheckValidator.validate(check);
  }

  public static List<FieldError> admissionCheckUpdate(AdmissionCheck old, AdmissionCheck check) {
    return AdmissionCheckValidator.validateUpdate(old, check);
  }

  public static List<FieldError> provisioningRequestConfig(ProvisioningRequestConfig config) {
    return ProvisioningRequestConfigValidator.validate(config);
  }

  public static List<FieldError> job(Job job) {
    return JobValidator.validate(job);
  }

  public static List<FieldError> jobUpdate(Job old, Job job) {
    return JobValidator.validateUpdate(old, job);
  }

  /** A JobSet as JSON (e.g. a GenericKubernetesResource turned into a tree). */
  public static List<FieldError> jobSet(JsonNode jobSet) {
    return JobSetValidator.validate(jobSet);
  }

  public static List<FieldError> jobSetUpdate(JsonNode old, JsonNode jobSet) {
    return JobSetValidator.validateUpdate(old, jobSet);
  }
}
