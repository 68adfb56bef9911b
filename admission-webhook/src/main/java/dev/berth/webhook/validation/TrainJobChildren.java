package dev.berth.webhook.validation;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Objects;

/**
 * The JobSet Kubeflow Trainer makes for a TrainJob is left to that TrainJob, which is what Berth
 * queues and admits: it is neither defaulted nor queued a second time, and its Jobs and pods are
 * held to it through the JobSet rules ({@link JobSetChildren}, {@link PodQueueRule}). Anyone may
 * write a controller owner reference naming a TrainJob, so before such a JobSet runs (created or
 * changed, not suspended, by anyone but the operator) it must be the one the Trainer makes for an
 * admitted TrainJob: the TrainJob exists (same UID) and is not suspended, the JobSet has its name,
 * and each replicatedJob is a pod set of the TrainJob's Workload, with no more pods than it was
 * admitted for and containers asking what its template asks.
 */
final class TrainJobChildren {
  private static final FieldPath OWNERS = FieldPath.root("metadata").child("ownerReferences");
  private static final FieldPath REPLICATED_JOBS = FieldPath.root("spec").child("replicatedJobs");

  private TrainJobChildren() {}

  /** The controller owner reference naming a TrainJob, or null. */
  static JsonNode owner(JsonNode object) {
    return ControllerOwner.of(object, "trainer.kubeflow.org", "TrainJob");
  }

  /**
   * {@code trainJob} is the stored TrainJob the owner reference names (same UID), null if none;
   * {@code workloads} the Workloads it owns, as stored.
   */
  static void check(
      JsonNode jobSet, JsonNode owner, JsonNode trainJob, List<JsonNode> workloads, Errors errors) {
    String name = owner.path("name").asText();
    if (trainJob == null) {
      errors.add(
          FieldError.forbidden(
              OWNERS,
              "TrainJob "
                  + name
                  + " (uid "
                  + owner.path("uid").asText()
                  + ") does not exist (or the trainer.kubeflow.org/trainjob integration is off);"
                  + " a JobSet of a TrainJob runs only when its TrainJob does"));
      return;
    }
    if (trainJob.path("spec").path("suspend").asBoolean(false)) {
      errors.add(
          FieldError.forbidden(
              OWNERS,
              "TrainJob "
                  + name
                  + " is suspended (not admitted); its JobSet runs only when the Berth operator"
                  + " starts it"));
      return;
    }
    if (!name.equals(jobSet.path("metadata").path("name").asText())) {
      errors.add(
          FieldError.forbidden(
              FieldPath.root("metadata").child("name"),
              "TrainJob " + name + "'s JobSet is named " + name));
      return;
    }
    JsonNode podSets = workloads.isEmpty() ? null : workloads.get(0).at("/spec/podSets");
    if (podSets == null || !podSets.isArray()) {
      errors.add(
          FieldError.forbidden(
              OWNERS, "TrainJob " + name + " has no Workload: nothing admitted its JobSet's pods"));
      return;
    }
    JsonNode replicatedJobs = jobSet.path("spec").path("replicatedJobs");
    for (int i = 0; i < replicatedJobs.size(); i++) {
      checkReplicatedJob(replicatedJobs.get(i), REPLICATED_JOBS.index(i), podSets, name, errors);
    }
  }

  private static void checkReplicatedJob(
      JsonNode rj, FieldPath path, JsonNode podSets, String trainJob, Errors errors) {
    String rjName = rj.path("name").asText();
    JsonNode podSet = null;
    for (JsonNode candidate : podSets) {
      if (rjName.equals(candidate.path("name").asText())) {
        podSet = candidate;
      }
    }
    if (podSet == null) {
      errors.add(
          FieldError.forbidden(
              path.child("name"), "TrainJob " + trainJob + "'s Workload has no pod set " + rjName));
      return;
    }
    JsonNode jobSpec = rj.path("template").path("spec");
    int parallelism = jobSpec.path("parallelism").asInt(1);
    int perJob =
        jobSpec.has("completions")
            ? Math.min(parallelism, jobSpec.path("completions").asInt(1))
            : parallelism;
    int pods = rj.path("replicas").asInt(1) * perJob;
    int admitted = podSet.path("count").asInt(1);
    if (pods > admitted) {
      errors.add(
          FieldError.forbidden(
              path.child("replicas"),
              "runs "
                  + pods
                  + " pods, more than the "
                  + admitted
                  + " its TrainJob's Workload was admitted for"));
    }
    FieldPath podSpec = path.child("template").child("spec").child("template").child("spec");
    for (String list : List.of("containers", "initContainers")) {
      JsonNode mine = jobSpec.path("template").path("spec").path(list);
      JsonNode theirs = podSet.path("template").path("spec").path(list);
      for (int i = 0; i < mine.size(); i++) {
        JsonNode container = mine.get(i);
        JsonNode same = null;
        for (JsonNode candidate : theirs) {
          if (Objects.equals(candidate.path("name"), container.path("name"))) {
            same = candidate;
          }
        }
        if (same == null
            || !Quantities.sameRequests(same.path("resources"), container.path("resources"))) {
          errors.add(
              FieldError.forbidden(
                  podSpec.child(list).index(i).child("resources"),
                  "must be what the pod set " + rjName + " of its TrainJob's Workload asks for"));
        }
      }
    }
  }
}
