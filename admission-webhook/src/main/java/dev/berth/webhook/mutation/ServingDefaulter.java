package dev.berth.webhook.mutation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.berth.api.v1beta1.Berth;
import dev.berth.webhook.validation.LeaderWorkerSetPods;
import dev.berth.webhook.validation.PodResources;
import dev.berth.webhook.validation.QueueScope;

/**
 * On create of a Deployment or a StatefulSet (the {@code deployment} and {@code statefulset}
 * integrations): their pods are queued as plain Pods, and a pod carries only its template's labels,
 * so the owner's {@code berth.dev/queue-name} and {@code berth.dev/priority-class} labels are
 * copied into its pod template (where the template does not already say). One that names no queue
 * anywhere gets the namespace's {@code default} LocalQueue, on both, when its pods ask for a
 * resource the namespace's ClusterQueues cover, as such a plain Pod would.
 *
 * <p>A queued StatefulSet's pods are one pod group, admitted whole: the template gets the group's
 * label, named after the StatefulSet ({@link #groupName}), and its size, {@code spec.replicas}; and
 * the StatefulSet gets {@code podManagementPolicy: Parallel}, since under the default
 * (OrderedReady) the controller makes the second pod only once the first is Ready, and the first
 * waits behind its gate until the whole group exists: the group would never form. Its pods are
 * released together anyway, so their start order would mean nothing.
 *
 * <p>Nothing is suspended: neither kind runs a pod of its own, and each pod waits behind the
 * admission gate the pod webhook puts on it.
 */
public final class ServingDefaulter implements Defaulter {
  private final QueueScope scope;
  private final boolean group;

  private ServingDefaulter(QueueScope scope, boolean group) {
    this.scope = scope;
    this.group = group;
  }

  /** Each pod on its own. */
  public static ServingDefaulter forDeployments(QueueScope scope) {
    return new ServingDefaulter(scope, false);
  }

  /** All pods as one group. */
  public static ServingDefaulter forStatefulSets(QueueScope scope) {
    return new ServingDefaulter(scope, true);
  }

  /**
   * The pod group of StatefulSet {@code name}: its name alone, since the API server gives a new
   * object its uid after the mutating webhooks ran. Its pods are found by this label within the
   * namespace, where one StatefulSet has the name at a time; a StatefulSet deleted and made again
   * under the same name whose old pods still terminate is the one case where two sets share the
   * group (the old pods stop counting once they are being deleted).
   */
  public static String groupName(String name) {
    return "statefulset-" + name;
  }

  @Override
  public void apply(ObjectNode deployment, String namespace) {
    ObjectNode metadata = Json.object(deployment, "metadata");
    ObjectNode spec = Json.object(deployment, "spec");
    ObjectNode template = spec == null ? null : Json.object(spec, "template");
    ObjectNode templateMetadata = template == null ? null : Json.object(template, "metadata");
    ObjectNode labels = metadata == null ? null : Json.object(metadata, "labels");
    ObjectNode podLabels =
        templateMetadata == null ? null : Json.object(templateMetadata, "labels");
    if (labels == null || podLabels == null) {
      return; // not a Deployment the API server would store; its validation says why
    }
    if (group && LeaderWorkerSetPods.madeByController(deployment)) {
      return; // a LeaderWorkerSet's: its pods are queued by replica group
    }
    if (!labels.has(Berth.QUEUE_NAME_LABEL) && !podLabels.has(Berth.QUEUE_NAME_LABEL)) {
      JsonNode podSpec = template.path("spec");
      if (namespace == null
          || !scope.exists(namespace, QueueScope.DEFAULT_QUEUE)
          || PodResources.totals(podSpec, scope.coveredResources(namespace)).isEmpty()) {
        return;
      }
      labels.put(Berth.QUEUE_NAME_LABEL, QueueScope.DEFAULT_QUEUE);
    }
    for (String key : new String[] {Berth.QUEUE_NAME_LABEL, Berth.PRIORITY_CLASS_LABEL}) {
      if (labels.has(key)) {
        Json.defaultText(podLabels, key, labels.get(key).asText());
      }
    }
    String name = metadata.path("name").asText("");
    ObjectNode podAnnotations = Json.object(templateMetadata, "annotations");
    if (group && !name.isEmpty() && podAnnotations != null) {
      // Always ours: a hand-set group or size would join or split other pods' groups.
      podLabels.put(Berth.POD_GROUP_NAME_LABEL, groupName(name));
      podAnnotations.put(
          Berth.POD_GROUP_TOTAL_COUNT_ANNOTATION, Integer.toString(spec.path("replicas").asInt(1)));
      spec.put("podManagementPolicy", "Parallel");
    }
  }
}
