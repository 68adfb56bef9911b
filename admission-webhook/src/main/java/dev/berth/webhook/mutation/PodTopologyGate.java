package dev.berth.webhook.mutation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.berth.api.v1beta1.Berth;

/**
 * On create of a pod of a topology-aware podSet (one carrying {@link Berth#PODSET_LABEL}): add
 * Berth's scheduling gate, so kube-scheduler leaves the pod alone until the operator has put its
 * topology domain's node labels in its nodeSelector and removed the gate.
 *
 * <p>Only at create: Kubernetes lets an update remove scheduling gates but never add one.
 */
public final class PodTopologyGate implements Defaulter {
  @Override
  public void apply(ObjectNode pod, String namespace) {
    if (!pod.at("/metadata/labels").has(Berth.PODSET_LABEL)) {
      return;
    }
    ObjectNode spec = Json.object(pod, "spec");
    if (spec == null) {
      return;
    }
    JsonNode gates = spec.get("schedulingGates");
    if (gates == null || gates.isNull()) {
      gates = spec.putArray("schedulingGates");
    }
    if (!(gates instanceof ArrayNode list)) {
      return; // not a pod the API server would store; its validation says why
    }
    for (JsonNode gate : list) {
      if (Berth.TOPOLOGY_SCHEDULING_GATE.equals(gate.path("name").asText(null))) {
        return;
      }
    }
    // Appended: the gates already there belong to others, who release them on their own terms.
    list.addObject().put("name", Berth.TOPOLOGY_SCHEDULING_GATE);
  }
}
