package dev.berth.webhook.validation;

import com.fasterxml.jackson.databind.JsonNode;
import dev.berth.api.v1beta1.Berth;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The queue rule of the serving kinds, Deployments and StatefulSets, whose pods carry their pod
 * template's labels and are queued as plain Pods where the template names a LocalQueue ({@link
 * dev.berth.webhook.mutation.ServingDefaulter} copies the owner's own label there). In a namespace
 * Berth manages, a template that names none and asks for a resource the namespace's ClusterQueues
 * cover would have every pod the owner's controller creates refused by the pod queue rule, at every
 * scale-up, where only the controller's status shows it; refusing the owner says so once, at {@code
 * kubectl apply}. One whose label and template name different queues is refused too: its pods would
 * go to the template's.
 *
 * <p>On update only a change of the pod template, the labels (or, for a StatefulSet, the replicas)
 * is checked: one stored before its namespace was managed may still be scaled or paused. A queued
 * StatefulSet is one pod group of {@code replicas} pods, admitted whole; its size and its group are
 * fixed once created (Berth does not resize an admitted group), so a change of its replicas, or of
 * the group label and size in its template, is refused.
 */
public final class ServingQueueRule implements TemplateQueueRule {
  private static final FieldPath TEMPLATE_LABELS =
      FieldPath.root("spec").child("template").child("metadata").child("labels");
  private static final FieldPath TEMPLATE_LABEL = TEMPLATE_LABELS.key(Berth.QUEUE_NAME_LABEL);

  private final QueueScope scope;
  private final String kind;
  private final boolean group;

  private ServingQueueRule(QueueScope scope, String kind, boolean group) {
    this.scope = scope;
    this.kind = kind;
    this.group = group;
  }

  public static ServingQueueRule forDeployments(QueueScope scope) {
    return new ServingQueueRule(scope, "Deployment", false);
  }

  public static ServingQueueRule forStatefulSets(QueueScope scope) {
    return new ServingQueueRule(scope, "StatefulSet", true);
  }

  @Override
  public List<FieldError> onCreate(String namespace, JsonNode deployment) {
    if (group && LeaderWorkerSetPods.madeByController(deployment)) {
      return List.of(); // a LeaderWorkerSet's: its pods are queued by replica group
    }
    return check(namespace, deployment);
  }

  @Override
  public List<FieldError> onUpdate(String namespace, JsonNode old, JsonNode deployment) {
    if (group && LeaderWorkerSetPods.madeByController(deployment)) {
      return List.of(); // the LWS controller scales it with the LWS's replicas
    }
    if (group && old.at("/spec/template/metadata/labels").has(Berth.QUEUE_NAME_LABEL)) {
      List<FieldError> fixed = groupFixed(old, deployment);
      if (!fixed.isEmpty()) {
        return fixed;
      }
    }
    if (old.at("/spec/template").equals(deployment.at("/spec/template"))
        && old.at("/metadata/labels").equals(deployment.at("/metadata/labels"))) {
      return List.of();
    }
    return check(namespace, deployment);
  }

  /** A queued StatefulSet's size and group, as at its creation. */
  private List<FieldError> groupFixed(JsonNode old, JsonNode set) {
    String why =
        "a queued StatefulSet is one pod group admitted whole, of the size it was created with;"
            + " to change it, delete the StatefulSet and create it again";
    if (old.at("/spec/replicas").asInt(1) != set.at("/spec/replicas").asInt(1)) {
      return List.of(
          FieldError.forbidden(
              FieldPath.root("spec").child("replicas"),
              why + " (it has " + old.at("/spec/replicas").asInt(1) + ")"));
    }
    FieldPath count =
        FieldPath.root("spec")
            .child("template")
            .child("metadata")
            .child("annotations")
            .key(Berth.POD_GROUP_TOTAL_COUNT_ANNOTATION);
    if (!old.at("/spec/template/metadata/labels")
        .path(Berth.POD_GROUP_NAME_LABEL)
        .equals(set.at("/spec/template/metadata/labels").path(Berth.POD_GROUP_NAME_LABEL))) {
      return List.of(FieldError.forbidden(TEMPLATE_LABELS.key(Berth.POD_GROUP_NAME_LABEL), why));
    }
    if (!old.at("/spec/template/metadata/annotations")
        .path(Berth.POD_GROUP_TOTAL_COUNT_ANNOTATION)
        .equals(
            set.at("/spec/template/metadata/annotations")
                .path(Berth.POD_GROUP_TOTAL_COUNT_ANNOTATION))) {
      return List.of(FieldError.forbidden(count, why));
    }
    return List.of();
  }

  private List<FieldError> check(String namespace, JsonNode deployment) {
    JsonNode own = deployment.at("/metadata/labels").path(Berth.QUEUE_NAME_LABEL);
    JsonNode templates =
        deployment.at("/spec/template/metadata/labels").path(Berth.QUEUE_NAME_LABEL);
    if (!templates.isMissingNode()) {
      if (!own.isMissingNode() && !own.asText().equals(templates.asText())) {
        return List.of(
            FieldError.invalid(
                TEMPLATE_LABEL,
                templates.asText(),
                "the "
                    + kind
                    + "'s own "
                    + Berth.QUEUE_NAME_LABEL
                    + " label names LocalQueue "
                    + own.asText()
                    + ", and its pods are queued in the template's; name the same one in both"));
      }
      return List.of();
    }
    Optional<String> managed = scope.managedBecause(namespace);
    if (managed.isEmpty()) {
      return List.of(); // its pods are not Berth's
    }
    Map<String, BigDecimal> asks =
        PodResources.totals(
            deployment.at("/spec/template/spec"), scope.coveredResources(namespace));
    if (asks.isEmpty()) {
      return List.of(); // its pods hold no quota, and the pod queue rule lets them in
    }
    return List.of(
        FieldError.required(
            TEMPLATE_LABEL,
            unqueued(
                namespace,
                managed.get(),
                kind,
                asks.keySet(),
                kind + " (or its pod template)",
                scope.localQueues(namespace),
                group ? "queues its pods" : "queues each of its pods")));
  }

  /**
   * Why a {@code kind} whose pods ask for {@code asks} in a namespace Berth manages ({@code
   * managed}: why) is refused: every pod it would make would be refused; label {@code what} with
   * one of {@code queues}, and Berth {@code then}.
   */
  static String unqueued(
      String namespace,
      String managed,
      String kind,
      java.util.Set<String> asks,
      String what,
      List<String> queues,
      String then) {
    return "namespace "
        + namespace
        + " is managed by Berth ("
        + managed
        + ") and the "
        + kind
        + "'s pods ask for "
        + String.join(", ", asks)
        + ", which its quota covers, so every pod it creates would be refused; label the "
        + what
        + " "
        + Berth.QUEUE_NAME_LABEL
        + " with one of the namespace's LocalQueues ("
        + (queues.isEmpty() ? "it has none yet" : String.join(", ", queues))
        + ") so that Berth "
        + then;
  }
}
