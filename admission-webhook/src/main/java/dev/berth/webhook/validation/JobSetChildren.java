package dev.berth.webhook.validation;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Objects;

/**
 * A Job that names a JobSet as its controller is left to that JobSet, which is what Berth queues
 * and admits. Anyone may write such an owner reference, so before such a Job starts it must be one
 * the JobSet itself would run: the JobSet exists (same UID) and runs, and the Job is one of its
 * replicatedJobs' ({@code <jobset>-<replicatedJob>-<index>}, index below replicas, a name unique in
 * the namespace) with no more pods and the same requests as that replicatedJob's.
 */
final class JobSetChildren {
  private static final FieldPath OWNERS = FieldPath.root("metadata").child("ownerReferences");

  private JobSetChildren() {}

  /** The controller owner reference naming a JobSet, or null. */
  static JsonNode owner(JsonNode job) {
    return ControllerOwner.of(job, "jobset.x-k8s.io", "JobSet");
  }

  /** {@code jobSet} is the stored JobSet the owner reference names (same UID); null if none. */
  static void checkStart(JsonNode job, JsonNode owner, JsonNode jobSet, Errors errors) {
    String jobSetName = owner.path("name").asText();
    if (jobSet == null) {
      errors.add(
          FieldError.forbidden(
              OWNERS,
              "JobSet "
                  + jobSetName
                  + " (uid "
                  + owner.path("uid").asText()
                  + ") does not exist; a Job of a JobSet starts only"
                  + " when its JobSet does"));
      return;
    }
    if (jobSet.path("spec").path("suspend").asBoolean(false)) {
      errors.add(
          FieldError.forbidden(
              OWNERS,
              "JobSet "
                  + jobSetName
                  + " is suspended (not"
                  + " admitted); its Jobs start only when the Berth operator starts it"));
      return;
    }
    String name = job.path("metadata").path("name").asText();
    for (JsonNode rj : jobSet.path("spec").path("replicatedJobs")) {
      String prefix = jobSetName + "-" + rj.path("name").asText() + "-";
      if (name.startsWith(prefix)
          && isIndex(name.substring(prefix.length()), rj.path("replicas").asInt(1))) {
        checkSize(job.path("spec"), rj.path("template").path("spec"), errors);
        return;
      }
    }
    errors.add(
        FieldError.forbidden(
            FieldPath.root("metadata").child("name"),
            "JobSet "
                + jobSetName
                + " runs no Job of this name (<jobset>-<replicatedJob>-<index>)"));
  }

  private static boolean isIndex(String text, int replicas) {
    if (text.isEmpty() || text.length() > 9 || !text.chars().allMatch(Character::isDigit)) {
      return false;
    }
    return Integer.parseInt(text) < replicas;
  }

  private static void checkSize(JsonNode job, JsonNode replicated, Errors errors) {
    FieldPath spec = FieldPath.root("spec");
    for (String count : java.util.List.of("parallelism", "completions")) {
      int mine = job.path(count).asInt(1);
      int allowed = replicated.path(count).asInt(1);
      if (mine > allowed) {
        errors.add(
            FieldError.forbidden(
                spec.child(count),
                "is " + mine + ", more than the " + allowed + " of its JobSet's replicatedJob"));
      }
    }
    for (String list : java.util.List.of("containers", "initContainers")) {
      JsonNode mine = job.path("template").path("spec").path(list);
      JsonNode theirs = replicated.path("template").path("spec").path(list);
      for (int i = 0; i < mine.size(); i++) {
        JsonNode container = mine.get(i);
        JsonNode same = null;
        for (JsonNode candidate : theirs) {
          if (Objects.equals(candidate.path("name"), container.path("name"))) {
            same = candidate;
          }
        }
        if (same == null || !same.path("resources").equals(container.path("resources"))) {
          errors.add(
              FieldError.forbidden(
                  spec.child("template").child("spec").child(list).index(i).child("resources"),
                  "must be what its JobSet's replicatedJob asks for"));
        }
      }
    }
  }
}
