package dev.berth.webhook.validation;

import com.fasterxml.jackson.databind.JsonNode;
import dev.berth.api.v1beta1.Berth;
import java.util.List;

/**
 * Which pods are plain Pods of the pod integration: those without a controller owner, or whose
 * controller is a ReplicaSet (a Deployment's pods, each queued on its own: the {@code deployment}
 * integration) or a StatefulSet (one pod group: the {@code statefulset} integration); the chart
 * turns each on by letting such pods reach the pod webhook. A Job's or a DaemonSet's pods are their
 * owner's business. Of those, the ones Berth queues are marked {@link Berth#MANAGED_LABEL} by the
 * pod webhook when it gated them at creation. Queueing a pod whose owner reference is forged is
 * harmless: it is charged like any plain Pod.
 */
public final class PlainPods {
  private PlainPods() {}

  /**
   * Whether the pod has no controller owner, or a ReplicaSet or a StatefulSet (apps/v1) as its
   * controller.
   */
  public static boolean isPlain(JsonNode pod) {
    for (JsonNode owner : pod.path("metadata").path("ownerReferences")) {
      if (owner.path("controller").asBoolean(false) && !isServing(owner)) {
        return false;
      }
    }
    return true;
  }

  private static boolean isServing(JsonNode owner) {
    String kind = owner.path("kind").asText();
    return (kind.equals("ReplicaSet") || kind.equals("StatefulSet"))
        && "apps/v1".equals(owner.path("apiVersion").asText());
  }

  /** Whether the pod is a plain Pod Berth queues: named a LocalQueue and was gated for it. */
  public static boolean isQueued(JsonNode pod) {
    JsonNode labels = pod.path("metadata").path("labels");
    return isPlain(pod)
        && labels.has(Berth.QUEUE_NAME_LABEL)
        && "true".equals(labels.path(Berth.MANAGED_LABEL).asText(null));
  }

  /**
   * A pod of a group ({@link Berth#POD_GROUP_NAME_LABEL}) must say how many pods the group has
   * ({@link Berth#POD_GROUP_TOTAL_COUNT_ANNOTATION}, a positive integer): its Workload is made once
   * that many exist.
   */
  public static List<FieldError> groupProblems(JsonNode pod) {
    if (!pod.path("metadata").path("labels").has(Berth.POD_GROUP_NAME_LABEL)) {
      return List.of();
    }
    JsonNode count =
        pod.path("metadata").path("annotations").path(Berth.POD_GROUP_TOTAL_COUNT_ANNOTATION);
    FieldPath path =
        FieldPath.root("metadata").child("annotations").key(Berth.POD_GROUP_TOTAL_COUNT_ANNOTATION);
    if (count.isMissingNode()) {
      return List.of(
          FieldError.required(
              path,
              "a pod of group "
                  + pod.path("metadata").path("labels").path(Berth.POD_GROUP_NAME_LABEL).asText()
                  + " must say how many pods the group has"));
    }
    Errors errors = new Errors();
    try {
      if (Integer.parseInt(count.asText().trim()) < 1) {
        errors.add(FieldError.invalid(path, count.asText(), "must be a positive integer"));
      }
    } catch (NumberFormatException e) {
      errors.add(FieldError.invalid(path, count.asText(), "must be a positive integer"));
    }
    // The role names the podSet the pod is counted in.
    JsonNode role = pod.path("metadata").path("annotations").path(Berth.POD_GROUP_ROLE_ANNOTATION);
    if (!role.isMissingNode()) {
      errors.dnsLabel(
          FieldPath.root("metadata").child("annotations").key(Berth.POD_GROUP_ROLE_ANNOTATION),
          role.asText());
    }
    return errors.toList();
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
