package dev.berth.webhook.validation;

import com.fasterxml.jackson.databind.JsonNode;
import dev.berth.webhook.integration.KubeRayDefaults;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.Objects;
import java.util.Set;

/**
 * What KubeRay creates for a RayJob, its RayCluster and (K8sJobMode) its submitter Job, is left to
 * that RayJob, which is what Berth queues and admits: neither is queued a second time. Anyone may
 * write a controller owner reference naming a RayJob, so before such an object runs (created or
 * changed, not suspended, by anyone but the operator) it must be one KubeRay itself would make for
 * it: the RayJob exists (same UID), is admitted (not suspended), and the object is the RayJob's
 * cluster (the name KubeRay wrote in the RayJob's {@code status.rayClusterName}) with no more
 * workers per group and the same requests as the RayJob's {@code rayClusterSpec}, or its submitter
 * Job (named after the RayJob, one pod, the requests of its submitter template).
 */
final class RayChildren {
  private static final FieldPath OWNERS = FieldPath.root("metadata").child("ownerReferences");
  private static final FieldPath SPEC = FieldPath.root("spec");

  private RayChildren() {}

  /** The controller owner reference naming a RayJob, or null. */
  static JsonNode owner(JsonNode object) {
    return controller(object, "RayJob");
  }

  /** The controller owner reference naming a ray.io {@code kind}, or null. */
  static JsonNode controller(JsonNode object, String kind) {
    return ControllerOwner.of(object, "ray.io", kind);
  }

  /**
   * {@code rayJob} is the stored RayJob the owner reference names (same UID), null if none; {@code
   * kind} the child's, Job or RayCluster.
   */
  static void check(String kind, JsonNode child, JsonNode owner, JsonNode rayJob, Errors errors) {
    String jobName = owner.path("name").asText();
    if (rayJob == null) {
      errors.add(
          FieldError.forbidden(
              OWNERS,
              "RayJob "
                  + jobName
                  + " (uid "
                  + owner.path("uid").asText()
                  + ") does not exist; a "
                  + kind
                  + " of a RayJob runs only when its RayJob does"));
      return;
    }
    if (rayJob.path("spec").path("suspend").asBoolean(false)) {
      errors.add(
          FieldError.forbidden(
              OWNERS,
              "RayJob "
                  + jobName
                  + " is suspended (not admitted); its "
                  + kind
                  + " runs only when the Berth operator starts it"));
      return;
    }
    String name = child.path("metadata").path("name").asText();
    JsonNode spec = child.path("spec");
    if ("Job".equals(kind)) {
      if (!name.equals(jobName)) {
        errors.add(
            FieldError.forbidden(
                FieldPath.root("metadata").child("name"),
                "RayJob " + jobName + "'s submitter Job is named " + jobName));
      }
      for (String count : java.util.List.of("parallelism", "completions")) {
        if (spec.path(count).asInt(1) > 1) {
          errors.add(
              FieldError.forbidden(SPEC.child(count), "a RayJob's submitter Job runs one pod"));
        }
      }
      JsonNode submitter = rayJob.at("/spec/submitterPodTemplate/spec");
      if (!submitter.isObject()) {
        submitter =
            Serialization.jsonMapper()
                .<JsonNode>valueToTree(
                    java.util.Map.of("containers", java.util.List.of(KubeRayDefaults.submitter())));
      }
      sameRequests(
          spec.path("template").path("spec"),
          submitter,
          SPEC.child("template").child("spec"),
          "its RayJob's submitter template",
          Set.of(),
          errors);
      return;
    }
    String clusterName = rayJob.path("status").path("rayClusterName").asText("");
    if (!name.equals(clusterName)) {
      errors.add(
          FieldError.forbidden(
              FieldPath.root("metadata").child("name"),
              "RayJob "
                  + jobName
                  + " runs RayCluster "
                  + (clusterName.isEmpty() ? "(none yet)" : clusterName)
                  + ", not this one"));
      return;
    }
    checkCluster(spec, rayJob.path("spec").path("rayClusterSpec"), errors);
  }

  /** A RayJob's RayCluster within the cluster spec the RayJob's Workload was admitted for. */
  private static void checkCluster(JsonNode spec, JsonNode admitted, Errors errors) {
    if (spec.path("enableInTreeAutoscaling").asBoolean(false)) {
      errors.add(
          FieldError.forbidden(
              SPEC.child("enableInTreeAutoscaling"),
              "the autoscaler would add pods its RayJob's Workload does not cover"));
    }
    FieldPath head = SPEC.child("headGroupSpec").child("template").child("spec");
    // In SidecarMode KubeRay adds its submitter container to the head; its requests are counted.
    sameRequests(
        spec.at("/headGroupSpec/template/spec"),
        admitted.at("/headGroupSpec/template/spec"),
        head,
        "its RayJob's head template",
        Set.of(KubeRayDefaults.SUBMITTER_CONTAINER),
        errors);
    JsonNode groups = spec.path("workerGroupSpecs");
    for (int i = 0; i < groups.size(); i++) {
      JsonNode group = groups.get(i);
      FieldPath gp = SPEC.child("workerGroupSpecs").index(i);
      JsonNode theirs = null;
      for (JsonNode candidate : admitted.path("workerGroupSpecs")) {
        if (Objects.equals(candidate.path("groupName"), group.path("groupName"))) {
          theirs = candidate;
        }
      }
      if (theirs == null) {
        errors.add(
            FieldError.forbidden(
                gp.child("groupName"),
                "its RayJob has no worker group " + group.path("groupName").asText()));
        continue;
      }
      int mine = RayValidator.workers(group);
      int allowed = RayValidator.workers(theirs);
      if (mine > allowed) {
        errors.add(
            FieldError.forbidden(
                gp.child("replicas"),
                "asks "
                    + mine
                    + " worker pods, more than the "
                    + allowed
                    + " its RayJob's Workload was admitted for"));
      }
      sameRequests(
          group.at("/template/spec"),
          theirs.at("/template/spec"),
          gp.child("template").child("spec"),
          "its RayJob's worker group",
          Set.of(),
          errors);
    }
  }

  /**
   * Each container of {@code mine} (and init container) asks what the one of that name in {@code
   * theirs} does; containers named in {@code addedByKubeRay} may be extra if they ask KubeRay's
   * default submitter resources.
   */
  private static void sameRequests(
      JsonNode mine,
      JsonNode theirs,
      FieldPath path,
      String what,
      Set<String> addedByKubeRay,
      Errors errors) {
    for (String list : java.util.List.of("containers", "initContainers")) {
      JsonNode containers = mine.path(list);
      for (int i = 0; i < containers.size(); i++) {
        JsonNode container = containers.get(i);
        JsonNode same = null;
        for (JsonNode candidate : theirs.path(list)) {
          if (Objects.equals(candidate.path("name"), container.path("name"))) {
            same = candidate;
          }
        }
        JsonNode expected =
            same != null
                ? same.path("resources")
                : addedByKubeRay.contains(container.path("name").asText())
                    ? Serialization.jsonMapper()
                        .<JsonNode>valueToTree(KubeRayDefaults.submitter().getResources())
                    : null;
        if (expected == null || !Quantities.sameRequests(expected, container.path("resources"))) {
          errors.add(
              FieldError.forbidden(
                  path.child(list).index(i).child("resources"), "must be what " + what + " asks"));
        }
      }
    }
  }
}
