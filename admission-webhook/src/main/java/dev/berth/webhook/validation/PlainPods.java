package dev.berth.webhook.validation;

import com.fasterxml.jackson.databind.JsonNode;
import dev.berth.api.v1beta1.Berth;

/**
 * Which pods are plain Pods of the pod integration: those without a controller owner (a Job's, a
 * ReplicaSet's pods have one and are their owner's business), and of those, the ones Berth queues
 * (marked {@link Berth#MANAGED_LABEL} by the pod webhook when it gated them at creation).
 */
public final class PlainPods {
  private PlainPods() {}

  /** Whether no owner reference of the pod is its controller's. */
  public static boolean isPlain(JsonNode pod) {
    for (JsonNode owner : pod.path("metadata").path("ownerReferences")) {
      if (owner.path("controller").asBoolean(false)) {
        return false;
      }
    }
    return true;
  }

  /** Whether the pod is a plain Pod Berth queues: named a LocalQueue and was gated for it. */
  public static boolean isQueued(JsonNode pod) {
    JsonNode labels = pod.path("metadata").path("labels");
    return isPlain(pod)
        && labels.has(Berth.QUEUE_NAME_LABEL)
        && "true".equals(labels.path(Berth.MANAGED_LABEL).asText(null));
  }

  /** Whether the pod carries the scheduling gate {@code name} (other gates do not count). */
  public static boolean gated(JsonNode pod, String name) {
    for (JsonNode gate : pod.path("spec").path("schedulingGates")) {
      if (name.equals(gate.path("name").asText(null))) {
        return true;
      }
    }
    return false;
  }
}
