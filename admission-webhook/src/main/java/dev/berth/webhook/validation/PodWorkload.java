package dev.berth.webhook.validation;

import com.fasterxml.jackson.databind.JsonNode;
import dev.berth.api.v1beta1.Berth;
import dev.berth.webhook.integration.Framework;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The Workload a pod of any kind Berth queues runs under, and its pod set in it, found by walking
 * the pod's controller owners up to the object the operator made the Workload for, as each kind's
 * adapter names its Workload's owner and pod sets:
 *
 * <ul>
 *   <li>a queued plain Pod (a Deployment's included): its own Workload, pod set {@code main}; a pod
 *       of a group (a StatefulSet's, a LeaderWorkerSet replica group's): the group's Workload,
 *       named after the group, pod set its role;
 *   <li>a batch/v1 Job's pod: the Job's ({@code main}), its JobSet's (the replicatedJob), the
 *       TrainJob's that made that JobSet (the replicatedJob), or the RayJob's whose submitter it
 *       is;
 *   <li>a RayCluster's pod: the cluster's, or the RayJob's that made it ({@code head} or its worker
 *       group);
 *   <li>a training operator job's pod (PyTorchJob, MPIJob): the job's, its replica type.
 * </ul>
 *
 * One place for the pod queue rule (what a pod may hold against its Workload's charge) and the
 * claim webhook (the flavor its pod set was admitted on), so that a kind added to the registry is
 * added here once. Whether the owners are genuine (same UID, queued, running) is the pod queue
 * rule's to check, per kind; here an owner that cannot be read means no Workload.
 *
 * @param owner what the Workload is for, for messages ("Job train", "pod group web")
 * @param ownerUid the UID its {@code berth.dev/owner-uid} label names; null when found by name
 * @param name the Workload's name (a pod group's); null when found by its owner's UID
 */
public record PodWorkload(String owner, String ownerUid, String name, String podSet) {
  /** The pod set of a Job's or a plain Pod's Workload (the operator's adapters name it so). */
  private static final String MAIN = "main";

  /** A JobSet's child Job's label naming its replicatedJob: its pod set. */
  private static final String REPLICATED_JOB_LABEL = "jobset.sigs.k8s.io/replicatedjob-name";

  /** The pod set of a RayJob's submitter Job (RayJobAdapter). */
  private static final String SUBMITTER = "submitter";

  /** Where {@code pod} (as created or stored) is charged, or empty when Berth queues it nowhere. */
  public static Optional<PodWorkload> of(String namespace, JsonNode pod, QueueScope scope) {
    if (PlainPods.isQueued(pod)) {
      JsonNode group = pod.at("/metadata/labels").path(Berth.POD_GROUP_NAME_LABEL);
      if (group.isTextual()) {
        String role =
            pod.at("/metadata/annotations").path(Berth.POD_GROUP_ROLE_ANNOTATION).asText("").trim();
        return Optional.of(
            new PodWorkload(
                "pod group " + group.asText(), null, group.asText(), role.isEmpty() ? MAIN : role));
      }
      return Optional.of(
          new PodWorkload(
              "Pod " + pod.at("/metadata/name").asText(),
              pod.at("/metadata/uid").asText(),
              null,
              MAIN));
    }
    JsonNode controller = controller(pod);
    if (controller == null) {
      return Optional.empty();
    }
    String kind = controller.path("kind").asText();
    String apiVersion = controller.path("apiVersion").asText();
    if ("Job".equals(kind) && "batch/v1".equals(apiVersion)) {
      return stored(scope.job(namespace, controller.path("name").asText()), controller)
          .flatMap(job -> ofJob(namespace, job, scope));
    }
    if ("RayCluster".equals(kind) && apiVersion.startsWith("ray.io/")) {
      return stored(scope.rayObject("RayCluster", namespace, name(controller)), controller)
          .map(cluster -> ofRayCluster(cluster, pod));
    }
    for (Framework framework : List.of(Framework.PYTORCHJOB, Framework.MPIJOB)) {
      if (framework.kind().equals(kind)
          && (framework.group() + "/" + framework.version()).equals(apiVersion)) {
        String type = pod.at("/metadata/labels").path(PodQueueRule.REPLICA_TYPE_LABEL).asText("");
        return Optional.of(
            new PodWorkload(
                kind + " " + name(controller),
                controller.path("uid").asText(),
                null,
                type.toLowerCase(Locale.ROOT)));
      }
    }
    return Optional.empty();
  }

  /** The Workload as stored, when there is one. */
  public Optional<JsonNode> workload(String namespace, QueueScope scope) {
    if (name != null) {
      return scope.workload(namespace, name);
    }
    return scope.workloadsOwnedBy(namespace, ownerUid).stream().findFirst();
  }

  /** The flavor assigned to each resource of its pod set, by the stored Workload's admission. */
  public java.util.Map<String, String> flavors(String namespace, QueueScope scope) {
    java.util.Map<String, String> flavors = new java.util.TreeMap<>();
    workload(namespace, scope)
        .ifPresent(
            wl -> {
              for (JsonNode a : wl.at("/status/admission/podSetAssignments")) {
                if (podSet.equals(a.path("name").asText())) {
                  a.path("flavors")
                      .fields()
                      .forEachRemaining(e -> flavors.put(e.getKey(), e.getValue().asText()));
                }
              }
            });
    return flavors;
  }

  private static Optional<PodWorkload> ofJob(String namespace, JsonNode job, QueueScope scope) {
    JsonNode jobSet = JobSetChildren.owner(job);
    if (jobSet != null) {
      String replicatedJob = job.at("/metadata/labels").path(REPLICATED_JOB_LABEL).asText("");
      // The JobSet Kubeflow Trainer makes is run under its TrainJob's Workload.
      JsonNode trainJob =
          stored(scope.jobSet(namespace, name(jobSet)), jobSet)
              .map(TrainJobChildren::owner)
              .orElse(null);
      JsonNode runs = trainJob != null ? trainJob : jobSet;
      return Optional.of(
          new PodWorkload(
              runs.path("kind").asText() + " " + name(runs),
              runs.path("uid").asText(),
              null,
              replicatedJob));
    }
    JsonNode rayJob = RayChildren.owner(job);
    if (rayJob != null) {
      return Optional.of(
          new PodWorkload("RayJob " + name(rayJob), rayJob.path("uid").asText(), null, SUBMITTER));
    }
    return Optional.of(
        new PodWorkload(
            "Job " + job.at("/metadata/name").asText(),
            job.at("/metadata/uid").asText(),
            null,
            MAIN));
  }

  private static PodWorkload ofRayCluster(JsonNode cluster, JsonNode pod) {
    JsonNode labels = pod.at("/metadata/labels");
    String podSet =
        "head".equals(labels.path("ray.io/node-type").asText())
            ? "head"
            : labels.path("ray.io/group").asText("");
    JsonNode rayJob = RayChildren.owner(cluster);
    return rayJob != null
        ? new PodWorkload("RayJob " + name(rayJob), rayJob.path("uid").asText(), null, podSet)
        : new PodWorkload(
            "RayCluster " + cluster.at("/metadata/name").asText(),
            cluster.at("/metadata/uid").asText(),
            null,
            podSet);
  }

  /** {@code found}, when it is the object {@code owner} names (same UID). */
  private static Optional<JsonNode> stored(Optional<JsonNode> found, JsonNode owner) {
    return found.filter(o -> o.at("/metadata/uid").asText().equals(owner.path("uid").asText()));
  }

  private static String name(JsonNode owner) {
    return owner.path("name").asText();
  }

  private static JsonNode controller(JsonNode object) {
    for (JsonNode o : object.path("metadata").path("ownerReferences")) {
      if (o.path("controller").asBoolean(false)) {
        return o;
      }
    }
    return null;
  }
}
