package dev.berth.webhook.mutation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.berth.api.v1beta1.Berth;
import dev.berth.webhook.validation.LeaderWorkerSetPods;
import dev.berth.webhook.validation.PlainPods;
import dev.berth.webhook.validation.PodResources;
import dev.berth.webhook.validation.QueueScope;
import java.time.Clock;

/**
 * On create of a plain Pod (one without a controller owner) that names a LocalQueue: hold it behind
 * Berth's admission gate, so kube-scheduler leaves it alone until its Workload is admitted, and
 * mark it {@link Berth#MANAGED_LABEL} for the operator. An unlabelled plain pod that asks for a
 * resource the namespace's ClusterQueues cover gets the namespace's {@code default} LocalQueue when
 * there is one, as a Job does; one asking for nothing covered holds no quota and is left as
 * written.
 *
 * <p>Pods with a controller owner are that owner's: a managed Job's pods are charged through the
 * Job's Workload and must not be queued a second time. A LeaderWorkerSet's pods (owned by its
 * StatefulSets) are queued as one pod group per replica group ({@link LeaderWorkerSetPods}).
 */
public final class PodAdmissionGate implements Defaulter {
  private final QueueScope scope;
  private final Clock clock;

  public PodAdmissionGate(QueueScope scope) {
    this(scope, Clock.systemUTC());
  }

  public PodAdmissionGate(QueueScope scope, Clock clock) {
    this.scope = scope;
    this.clock = clock;
  }

  @Override
  public void apply(ObjectNode pod, String namespace) {
    if (!PlainPods.isPlain(pod)) {
      return;
    }
    ObjectNode metadata = Json.object(pod, "metadata");
    ObjectNode spec = Json.object(pod, "spec");
    if (metadata == null || spec == null) {
      return;
    }
    if (!pod.at("/metadata/labels").has(Berth.QUEUE_NAME_LABEL)) {
      if (namespace == null
          || !scope.exists(namespace, QueueScope.DEFAULT_QUEUE)
          || PodResources.totals(spec, scope.coveredResources(namespace)).isEmpty()) {
        return;
      }
      ObjectNode labels = Json.object(metadata, "labels");
      if (labels == null) {
        return;
      }
      labels.put(Berth.QUEUE_NAME_LABEL, QueueScope.DEFAULT_QUEUE);
    }
    ObjectNode labels = Json.object(metadata, "labels");
    ObjectNode annotations = Json.object(metadata, "annotations");
    if (labels == null || annotations == null) {
      return; // not a pod the API server would store; its validation says why
    }
    labels.put(Berth.MANAGED_LABEL, "true");
    if (LeaderWorkerSetPods.isMember(pod)) {
      joinReplicaGroup(pod, labels, annotations);
    }
    // Sub-second submission order, always ours (a hand-set value would jump the queue).
    annotations.put(Berth.SUBMITTED_AT_ANNOTATION, clock.instant().toString());
    JsonNode gates = spec.get("schedulingGates");
    if (gates == null || gates.isNull()) {
      gates = spec.putArray("schedulingGates");
    }
    if (!(gates instanceof ArrayNode list)) {
      return;
    }
    for (JsonNode gate : list) {
      if (Berth.ADMISSION_SCHEDULING_GATE.equals(gate.path("name").asText(null))) {
        return;
      }
    }
    // Appended: the gates already there belong to others, who release them on their own terms.
    list.addObject().put("name", Berth.ADMISSION_SCHEDULING_GATE);
  }

  /**
   * A LeaderWorkerSet's pod joins its replica group's pod group, with its role: always ours, like a
   * StatefulSet's group, since a hand-set group or size would join or split other pods' groups. A
   * pod whose group the LWS labels do not tell (never one the LWS controller made) stays a plain
   * Pod, queued on its own.
   */
  private static void joinReplicaGroup(JsonNode pod, ObjectNode labels, ObjectNode annotations) {
    String index = LeaderWorkerSetPods.groupIndex(pod);
    int size = LeaderWorkerSetPods.size(pod);
    if (index == null || size < 1) {
      return;
    }
    labels.put(
        Berth.POD_GROUP_NAME_LABEL,
        LeaderWorkerSetPods.groupName(labels.path(LeaderWorkerSetPods.NAME_LABEL).asText(), index));
    annotations.put(Berth.POD_GROUP_TOTAL_COUNT_ANNOTATION, Integer.toString(size));
    annotations.put(Berth.POD_GROUP_ROLE_ANNOTATION, LeaderWorkerSetPods.role(pod));
  }
}
