package dev.berth.webhook.mutation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.berth.api.v1beta1.Berth;
import dev.berth.webhook.validation.PodResources;
import dev.berth.webhook.validation.QueueScope;

/**
 * On create of a Deployment (the {@code deployment} integration): its pods are queued one by one as
 * plain Pods, and a pod carries only its template's labels, so the Deployment's {@code
 * berth.dev/queue-name} and {@code berth.dev/priority-class} labels are copied into its pod
 * template (where the template does not already say). A Deployment that names no queue anywhere
 * gets the namespace's {@code default} LocalQueue, on both, when its pods ask for a resource the
 * namespace's ClusterQueues cover, as such a plain Pod would.
 *
 * <p>Nothing is suspended: a Deployment runs no pod of its own, and each pod waits behind the
 * admission gate the pod webhook puts on it.
 */
public final class DeploymentDefaulter implements Defaulter {
  private final QueueScope scope;

  public DeploymentDefaulter(QueueScope scope) {
    this.scope = scope;
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
  }
}
