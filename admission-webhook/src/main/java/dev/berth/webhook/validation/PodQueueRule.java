package dev.berth.webhook.validation;

import com.fasterxml.jackson.databind.JsonNode;
import dev.berth.api.v1beta1.Berth;
import dev.berth.webhook.dra.ChargedDevices;
import dev.berth.webhook.dra.PodClaims;
import dev.berth.webhook.integration.Framework;
import dev.berth.webhook.mutation.NamespaceSelectors;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.math.BigDecimal;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The queue rule for pods: in a namespace Berth manages, a pod that asks for a resource a
 * ClusterQueue selecting the namespace covers must be queued itself (a plain Pod the pod
 * integration gated at creation: {@link PlainPods#isQueued}) or be one of a managed Job's pods (or
 * of a managed training operator job's, which creates its pods itself, checked the same way); any
 * other is refused, whoever creates it (a user's {@code kubectl run}, a ReplicaSet, a StatefulSet,
 * a DaemonSet, another operator's controller), because the pod would hold quota no Workload
 * accounts for. A labelled pod the pod webhook did not gate (the {@code pod} integration is off) is
 * not queued, and is refused like an unlabelled one.
 *
 * <p>A pod is a managed Job's when its controller owner reference names a batch/v1 Job that, read
 * from the API server, has that UID, is Berth's (carries the queue-name label, or is a JobSet's
 * child Job, which the Job rule holds to its JobSet), is not suspended (only the operator
 * unsuspends one, once its Workload is admitted), whose selector the pod matches (so the Job
 * controller counts it against the Job's parallelism and deletes any excess), and whose template
 * asks no less of each covered resource than the pod. Such a pod was charged through its Job's
 * Workload and is never refused or charged again. Anyone may write an owner reference, which is why
 * it is checked against the Job and not taken on trust.
 */
public final class PodQueueRule {
  private static final String MIRROR_POD = "kubernetes.io/config.mirror";
  private static final FieldPath OWNERS = FieldPath.root("metadata").child("ownerReferences");

  /** The training operator's label on a pod: its replica type, in lower case. */
  static final String REPLICA_TYPE_LABEL = "training.kubeflow.org/replica-type";

  private final RequestGuard guard;
  private final QueueScope scope;

  public PodQueueRule(RequestGuard guard, QueueScope scope) {
    this.guard = guard;
    this.scope = scope;
  }

  public List<FieldError> onCreate(String namespace, JsonNode pod, String username) {
    if (guard.isOperator(username) || pod.path("metadata").path("annotations").has(MIRROR_POD)) {
      // A mirror pod only reports a static pod the kubelet runs whatever the API server says.
      return List.of();
    }
    if (PlainPods.isQueued(pod) && PlainPods.gated(pod, Berth.ADMISSION_SCHEDULING_GATE)) {
      // Queued: it waits behind the gate until its Workload is admitted, charged through it.
      List<FieldError> group = PlainPods.groupProblems(pod);
      return group.isEmpty() ? groupChargeProblems(namespace, pod) : group;
    }
    Optional<String> managed = scope.managedBecause(namespace);
    if (managed.isEmpty()) {
      return List.of();
    }
    Set<String> covered = scope.coveredResources(namespace);
    JsonNode spec = pod.path("spec");
    ClaimResources claims = ClaimResources.of(namespace, spec, scope);
    if (!claims.refusals().isEmpty()) {
      return claims.refusals();
    }
    Map<String, BigDecimal> asks = claims.addTo(PodResources.totals(spec, covered), covered);
    if (asks.isEmpty()) {
      return List.of();
    }
    FieldPath field =
        PodResources.firstAsking(spec, asks.keySet())
            .or(claims::field)
            .orElse(FieldPath.root("spec"));
    int ownerIndex = controllerIndex(pod);
    JsonNode owner =
        ownerIndex < 0 ? null : pod.path("metadata").path("ownerReferences").get(ownerIndex);
    Optional<Framework> podOwner = owner == null ? Optional.empty() : podOwningKind(owner);
    if (podOwner.isPresent() || (owner != null && (isJob(owner) || isRayCluster(owner)))) {
      String problem =
          podOwner.isPresent()
              ? replicaProblem(podOwner.get(), namespace, pod, owner, asks)
              : isJob(owner)
                  ? jobProblem(namespace, pod, owner, asks)
                  : rayClusterProblem(namespace, pod, owner, asks);
      if (problem == null && claims.holdsDevices()) {
        problem = chargeProblem(namespace, pod, claims, asks.keySet());
      }
      if (problem == null) {
        return List.of();
      }
      return List.of(
          FieldError.forbidden(
              OWNERS.index(ownerIndex),
              problem + "; " + refusal(namespace, managed.get(), asks.keySet(), "")));
    }
    String createdBy =
        owner == null
            ? ""
            : " (created for "
                + owner.path("kind").asText()
                + " "
                + owner.path("name").asText()
                + ")";
    return List.of(
        FieldError.forbidden(field, refusal(namespace, managed.get(), asks.keySet(), createdBy)));
  }

  private String refusal(String namespace, String why, Set<String> resources, String createdBy) {
    List<String> queues = scope.localQueues(namespace);
    return "the pod"
        + createdBy
        + " asks for "
        + String.join(", ", resources)
        + ", which namespace "
        + namespace
        + "'s quota covers (it is managed by Berth: "
        + why
        + "): "
        + (createdBy.isEmpty()
            ? "label it "
            : "Berth does not queue the pods its owner creates; run the work as a Job, or as a"
                + " Pod of its own labelled ")
        + Berth.QUEUE_NAME_LABEL
        + " with one of the namespace's LocalQueues ("
        + (queues.isEmpty() ? "it has none yet" : String.join(", ", queues))
        + ") so that Berth queues it";
  }

  /** Why the pod is not one of its owner Job's Berth-managed pods, or null when it is. */
  private String jobProblem(
      String namespace, JsonNode pod, JsonNode owner, Map<String, BigDecimal> asks) {
    String name = owner.path("name").asText();
    String label = "Job " + name;
    JsonNode job =
        scope
            .job(namespace, name)
            .filter(j -> j.at("/metadata/uid").asText().equals(owner.path("uid").asText()))
            .orElse(null);
    if (job == null) {
      return label + " with uid " + owner.path("uid").asText() + " does not exist";
    }
    JobView view = JobView.of(job);
    if (!view.managed() && !view.childOfJobSet()) {
      return label + " is not queued by Berth (it has no " + Berth.QUEUE_NAME_LABEL + " label)";
    }
    if (view.suspended()) {
      return label + " is suspended: its pods start only once its Workload is admitted";
    }
    if (!selects(job.at("/spec/selector"), pod.at("/metadata/labels"))) {
      return "the pod does not match the selector of " + label + ", so the Job does not count it";
    }
    return templateProblem(
        namespace, job.at("/spec/template/spec"), asks, label, "the Job's template");
  }

  /**
   * Why the pod is not one of its RayCluster's Berth-admitted pods, or null when it is: the cluster
   * (same UID) is admitted, itself (labelled, not suspended) or through the RayJob that made it
   * (which must exist, be labelled and not suspended; the cluster itself was held to that RayJob's
   * admission when it was created or changed), and the pod asks no more than its group's template
   * (KubeRay's {@code ray.io/node-type} and {@code ray.io/group} labels; a worker's with the init
   * container KubeRay adds). It must carry the cluster's {@code ray.io/cluster} label, by which
   * KubeRay counts a group's pods and deletes any beyond its replicas.
   */
  private String rayClusterProblem(
      String namespace, JsonNode pod, JsonNode owner, Map<String, BigDecimal> asks) {
    String name = owner.path("name").asText();
    String label = "RayCluster " + name;
    JsonNode cluster =
        scope
            .rayObject("RayCluster", namespace, name)
            .filter(c -> c.at("/metadata/uid").asText().equals(owner.path("uid").asText()))
            .orElse(null);
    if (cluster == null) {
      return label
          + " with uid "
          + owner.path("uid").asText()
          + " does not exist (or the ray.io/raycluster integration is off)";
    }
    JsonNode jobOwner = RayChildren.owner(cluster);
    JsonNode admitted = cluster;
    String admittedLabel = label;
    if (jobOwner != null) {
      admittedLabel = "RayJob " + jobOwner.path("name").asText();
      admitted =
          scope
              .rayObject("RayJob", namespace, jobOwner.path("name").asText())
              .filter(j -> j.at("/metadata/uid").asText().equals(jobOwner.path("uid").asText()))
              .orElse(null);
      if (admitted == null) {
        return label + "'s " + admittedLabel + " does not exist";
      }
    }
    JobView view = JobView.of(admitted);
    if (!view.managed()) {
      return admittedLabel
          + " is not queued by Berth (it has no "
          + Berth.QUEUE_NAME_LABEL
          + " label)";
    }
    if (view.suspended() || cluster.path("spec").path("suspend").asBoolean(false)) {
      return admittedLabel + " is suspended: its pods start only once its Workload is admitted";
    }
    JsonNode labels = pod.path("metadata").path("labels");
    if (!name.equals(labels.path("ray.io/cluster").asText())) {
      // KubeRay counts a group's pods by this label, and deletes those beyond its replicas.
      return "the pod is not labelled ray.io/cluster=" + name + ", so KubeRay does not count it";
    }
    JsonNode templateSpec;
    if ("head".equals(labels.path("ray.io/node-type").asText())) {
      templateSpec = cluster.at("/spec/headGroupSpec/template/spec");
    } else {
      String group = labels.path("ray.io/group").asText();
      templateSpec = null;
      for (JsonNode candidate : cluster.at("/spec/workerGroupSpecs")) {
        if (group.equals(candidate.path("groupName").asText())) {
          templateSpec = candidate.at("/template/spec").deepCopy();
        }
      }
      if (templateSpec == null || !templateSpec.isObject()) {
        return label + " has no worker group \"" + group + "\" (the pod's ray.io/group label)";
      }
      ((com.fasterxml.jackson.databind.node.ObjectNode) templateSpec)
          .withArray("initContainers")
          .add(
              Serialization.jsonMapper()
                  .<JsonNode>valueToTree(
                      dev.berth.webhook.integration.KubeRayDefaults.waitGcsReady()));
    }
    return templateProblem(namespace, templateSpec, asks, label, "its group's template");
  }

  /**
   * Why the pod asks for more than {@code templateSpec}, its Workload's, or null when it does not.
   */
  private String templateProblem(
      String namespace,
      JsonNode templateSpec,
      Map<String, BigDecimal> asks,
      String label,
      String where) {
    Map<String, BigDecimal> template =
        ClaimResources.of(namespace, templateSpec, scope)
            .addTo(PodResources.totals(templateSpec, asks.keySet()), asks.keySet());
    for (Map.Entry<String, BigDecimal> ask : asks.entrySet()) {
      BigDecimal admitted = template.getOrDefault(ask.getKey(), BigDecimal.ZERO);
      if (ask.getValue().compareTo(admitted) > 0) {
        return "the pod asks for "
            + ask.getValue().toPlainString()
            + " "
            + ask.getKey()
            + " and the template of "
            + label
            + ", which its Workload was admitted for, for "
            + admitted.toPlainString()
            + " (set the request in "
            + where
            + ")";
      }
    }
    return null;
  }

  /**
   * Why the devices of the pod's claims are beyond what its Workload was charged, or null. The
   * Workload and pod set are its owners' ({@link PodWorkload}); its owner runs, so it was admitted,
   * and one without a Workload has pods that nobody charged.
   */
  private String chargeProblem(
      String namespace, JsonNode pod, ClaimResources claims, Set<String> covered) {
    Optional<PodWorkload> at = PodWorkload.of(namespace, pod, scope);
    Optional<JsonNode> workload = at.flatMap(w -> w.workload(namespace, scope));
    if (workload.isEmpty()) {
      return at.map(PodWorkload::owner).orElse("the pod's owner")
          + " has no Workload, so the devices of the pod's claims are charged to no queue";
    }
    String beyond = claims.beyond(ChargedDevices.of(workload.get()), at.get().podSet(), covered);
    return beyond != null
        ? beyond
        : SharedClaimFlavors.problem(namespace, claims.sharedClaims(), workload.get(), scope);
  }

  /**
   * A queued pod joining a group whose Workload exists (a replacement, a StatefulSet's pod made
   * from a changed template, one a team member adds): refused when its claims hold more than its
   * role's pod set was charged when the Workload was made. A group's first pods are charged when
   * its Workload is made from them, so a pod made before it is not checked here.
   */
  private List<FieldError> groupChargeProblems(String namespace, JsonNode pod) {
    JsonNode spec = pod.path("spec");
    if (!pod.at("/metadata/labels").has(Berth.POD_GROUP_NAME_LABEL) || PodClaims.none(spec)) {
      return List.of();
    }
    PodWorkload at = PodWorkload.of(namespace, pod, scope).orElseThrow();
    Optional<JsonNode> workload = at.workload(namespace, scope);
    if (workload.isEmpty()) {
      return List.of();
    }
    ClaimResources claims = ClaimResources.of(namespace, spec, scope);
    if (!claims.refusals().isEmpty()) {
      return claims.refusals();
    }
    String problem =
        claims.beyond(ChargedDevices.of(workload.get()), at.podSet(), claims.resources());
    return problem == null
        ? List.of()
        : List.of(
            FieldError.forbidden(
                FieldPath.root("spec").child("resourceClaims"),
                problem + "; the pod joins " + at.owner() + ", admitted for what it was charged"));
  }

  /**
   * The registry kind that creates its pods itself (no batch/v1 Job between), when the pod's
   * controller is one: a training operator v1 job.
   */
  private static Optional<Framework> podOwningKind(JsonNode owner) {
    for (Framework framework : List.of(Framework.PYTORCHJOB, Framework.MPIJOB)) {
      if (framework.kind().equals(owner.path("kind").asText())
          && (framework.group() + "/" + framework.version())
              .equals(owner.path("apiVersion").asText())) {
        return Optional.of(framework);
      }
    }
    return Optional.empty();
  }

  /**
   * Why the pod is not one of its owner training job's Berth-managed pods, or null when it is: the
   * job, read from the API server, has the owner reference's UID, is Berth's, runs (only the
   * operator unsuspends it), and the template of the pod's replica type (the training operator's
   * label) asks no less than the pod.
   */
  private String replicaProblem(
      Framework framework,
      String namespace,
      JsonNode pod,
      JsonNode owner,
      Map<String, BigDecimal> asks) {
    String name = owner.path("name").asText();
    String label = framework.kind() + " " + name;
    JsonNode job =
        scope
            .owner(framework, namespace, name)
            .filter(j -> j.at("/metadata/uid").asText().equals(owner.path("uid").asText()))
            .orElse(null);
    if (job == null) {
      return label + " with uid " + owner.path("uid").asText() + " does not exist";
    }
    JobView view = JobView.of(job, framework);
    if (!view.managed()) {
      return label + " is not queued by Berth (it has no " + Berth.QUEUE_NAME_LABEL + " label)";
    }
    if (view.suspended()) {
      return label + " is suspended: its pods start only once its Workload is admitted";
    }
    String type = pod.at("/metadata/labels").path(REPLICA_TYPE_LABEL).asText(null);
    Optional<JsonNode> template = KubeflowJobValidator.templateOf(framework, job, type);
    if (template.isEmpty()) {
      return "the pod's "
          + REPLICA_TYPE_LABEL
          + " label ("
          + type
          + ") names no replica type of "
          + label;
    }
    return templateProblem(
        namespace, template.get().path("spec"), asks, label, "the " + type + " replica's template");
  }

  private static boolean isRayCluster(JsonNode owner) {
    return "RayCluster".equals(owner.path("kind").asText())
        && owner.path("apiVersion").asText().startsWith("ray.io/");
  }

  private static boolean isJob(JsonNode owner) {
    return "Job".equals(owner.path("kind").asText())
        && "batch/v1".equals(owner.path("apiVersion").asText());
  }

  /** The index of the pod's controller owner reference, or -1. */
  private static int controllerIndex(JsonNode pod) {
    JsonNode owners = pod.path("metadata").path("ownerReferences");
    for (int i = 0; owners.isArray() && i < owners.size(); i++) {
      if (owners.get(i).path("controller").asBoolean(false)) {
        return i;
      }
    }
    return -1;
  }

  /** A Job's label selector applied to the pod's labels; a Job without one selects nothing. */
  private static boolean selects(JsonNode selector, JsonNode labels) {
    if (!selector.isObject()) {
      return false;
    }
    Map<String, String> values = new HashMap<>();
    labels.fields().forEachRemaining(e -> values.put(e.getKey(), e.getValue().asText()));
    return NamespaceSelectors.selects(
        Serialization.jsonMapper().convertValue(selector, LabelSelector.class), values);
  }
}
