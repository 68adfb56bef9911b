package dev.berth.webhook.mutation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.berth.api.v1beta1.Berth;
import dev.berth.webhook.validation.LeaderWorkerSetTemplates;
import dev.berth.webhook.validation.PodResources;
import dev.berth.webhook.validation.QueueScope;
import java.util.List;

/**
 * On create of a LeaderWorkerSet (the {@code leaderworkerset.x-k8s.io/leaderworkerset}
 * integration): its pods are made by the LWS controller from its leader and worker templates and
 * carry only their labels, so the LWS's {@code berth.dev/queue-name} and {@code
 * berth.dev/priority-class} are copied into both templates (where a template does not say already);
 * the pod webhook then puts each pod into its replica group's pod group. One that names no queue
 * and whose pods ask for a resource the namespace's ClusterQueues cover gets the namespace's {@code
 * default} LocalQueue when there is one.
 *
 * <p>Topology: a template that asks for {@code berth.dev/podset-required-topology} asks it for the
 * whole replica group (a leader and its workers talk over the fastest links there are), so the
 * other template gets the same level and both the same {@code berth.dev/podset-group-name}: the
 * group's two podSets are then placed together, in one domain. A template naming a podSet group of
 * its own is left as written.
 *
 * <p>Nothing is suspended: the LWS has no suspend, and each pod waits behind the admission gate.
 */
public final class LeaderWorkerSetDefaulter implements Defaulter {
  /** The podSet group both templates get when one asks for a required topology. */
  public static final String REPLICA_PODSET_GROUP = "replica-group";

  private final QueueScope scope;

  public LeaderWorkerSetDefaulter(QueueScope scope) {
    this.scope = scope;
  }

  @Override
  public void apply(ObjectNode lws, String namespace) {
    ObjectNode metadata = Json.object(lws, "metadata");
    ObjectNode labels = metadata == null ? null : Json.object(metadata, "labels");
    List<ObjectNode> templates = LeaderWorkerSetTemplates.of(lws);
    if (labels == null || templates.isEmpty()) {
      return; // not a LeaderWorkerSet the API server would store; its validation says why
    }
    if (!labels.has(Berth.QUEUE_NAME_LABEL)
        && templates.stream()
            .noneMatch(t -> t.path("metadata").path("labels").has(Berth.QUEUE_NAME_LABEL))) {
      if (namespace == null
          || !scope.exists(namespace, QueueScope.DEFAULT_QUEUE)
          || templates.stream()
              .allMatch(
                  t ->
                      PodResources.totals(t.path("spec"), scope.coveredResources(namespace))
                          .isEmpty())) {
        return;
      }
      labels.put(Berth.QUEUE_NAME_LABEL, QueueScope.DEFAULT_QUEUE);
    }
    for (ObjectNode template : templates) {
      ObjectNode templateMetadata = Json.object(template, "metadata");
      ObjectNode podLabels =
          templateMetadata == null ? null : Json.object(templateMetadata, "labels");
      if (podLabels == null) {
        continue;
      }
      for (String key : new String[] {Berth.QUEUE_NAME_LABEL, Berth.PRIORITY_CLASS_LABEL}) {
        if (labels.has(key)) {
          Json.defaultText(podLabels, key, labels.get(key).asText());
        }
      }
    }
    placeTogether(templates);
  }

  /** One template's required topology, for the whole replica group (see the class comment). */
  private static void placeTogether(List<ObjectNode> templates) {
    String level = null;
    for (ObjectNode template : templates) {
      JsonNode annotations = template.path("metadata").path("annotations");
      if (annotations.has(Berth.PODSET_GROUP_NAME)) {
        return;
      }
      if (level == null && annotations.hasNonNull(Berth.PODSET_REQUIRED_TOPOLOGY)) {
        level = annotations.get(Berth.PODSET_REQUIRED_TOPOLOGY).asText();
      }
    }
    if (level == null) {
      return;
    }
    for (ObjectNode template : templates) {
      ObjectNode templateMetadata = Json.object(template, "metadata");
      ObjectNode annotations =
          templateMetadata == null ? null : Json.object(templateMetadata, "annotations");
      if (annotations == null
          || annotations.has(Berth.PODSET_PREFERRED_TOPOLOGY)
          || annotations.has(Berth.PODSET_UNCONSTRAINED_TOPOLOGY)) {
        continue; // its own placement mode; the validation says it clashes with the group's
      }
      Json.defaultText(annotations, Berth.PODSET_REQUIRED_TOPOLOGY, level);
      annotations.put(Berth.PODSET_GROUP_NAME, REPLICA_PODSET_GROUP);
    }
  }
}
