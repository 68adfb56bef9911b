package dev.berth.webhook.validation;

import com.fasterxml.jackson.databind.JsonNode;
import dev.berth.api.v1beta1.Berth;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A Deployment's pods carry its pod template's labels and are queued one by one, each as a plain
 * Pod, where the template names a LocalQueue ({@link
 * dev.berth.webhook.mutation.DeploymentDefaulter} copies the Deployment's own label there). In a
 * namespace Berth manages, a template that names none and asks for a resource the namespace's
 * ClusterQueues cover would have every pod its ReplicaSets create refused by the pod queue rule, at
 * every scale-up, where only the ReplicaSet's status shows it; refusing the Deployment says so
 * once, at {@code kubectl apply}. A Deployment whose label and template name different queues is
 * refused too: its pods would go to the template's.
 *
 * <p>On update only a change of the pod template or of the labels is checked: a Deployment stored
 * before its namespace was managed may still be scaled or paused.
 */
public final class DeploymentQueueRule implements TemplateQueueRule {
  private static final FieldPath TEMPLATE_LABEL =
      FieldPath.root("spec")
          .child("template")
          .child("metadata")
          .child("labels")
          .key(Berth.QUEUE_NAME_LABEL);

  private final QueueScope scope;

  public DeploymentQueueRule(QueueScope scope) {
    this.scope = scope;
  }

  @Override
  public List<FieldError> onCreate(String namespace, JsonNode deployment) {
    return check(namespace, deployment);
  }

  @Override
  public List<FieldError> onUpdate(String namespace, JsonNode old, JsonNode deployment) {
    if (old.at("/spec/template").equals(deployment.at("/spec/template"))
        && old.at("/metadata/labels").equals(deployment.at("/metadata/labels"))) {
      return List.of();
    }
    return check(namespace, deployment);
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
                "the Deployment's own "
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
    List<String> queues = scope.localQueues(namespace);
    return List.of(
        FieldError.required(
            TEMPLATE_LABEL,
            "namespace "
                + namespace
                + " is managed by Berth ("
                + managed.get()
                + ") and the Deployment's pods ask for "
                + String.join(", ", asks.keySet())
                + ", which its quota covers, so every pod it creates would be refused; label the"
                + " Deployment (or its pod template) "
                + Berth.QUEUE_NAME_LABEL
                + " with one of the namespace's LocalQueues ("
                + (queues.isEmpty() ? "it has none yet" : String.join(", ", queues))
                + ") so that Berth queues each of its pods"));
  }
}
