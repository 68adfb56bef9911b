package dev.berth.webhook.mutation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.berth.api.v1beta1.Berth;
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
 * Job's Workload and must not be queued a second time.
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
}
