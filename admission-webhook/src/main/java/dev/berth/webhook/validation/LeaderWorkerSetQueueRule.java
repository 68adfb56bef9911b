package dev.berth.webhook.validation;

import com.fasterxml.jackson.databind.JsonNode;
import dev.berth.api.v1beta1.Berth;
import dev.berth.webhook.validation.LeaderWorkerSetTemplates.Template;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The queue rule of LeaderWorkerSets, whose replica groups are each one pod group admitted whole
 * (docs/leaderworkerset.md). In a namespace Berth manages, an LWS that names no LocalQueue and
 * whose pods ask for a resource the namespace's ClusterQueues cover is refused at creation, naming
 * the label to add: every pod its controller made would be refused by the pod queue rule, where
 * only its StatefulSets' status shows it.
 *
 * <p>A queued LWS (one with the label) keeps, for as long as it lives: its queue label (its groups
 * are queued there, and its pods carry it), its group size ({@code spec.leaderWorkerTemplate.size}:
 * an admitted group is never resized) and what its templates ask of quota and placement (resources,
 * nodeSelector, tolerations, affinity: a rolling update replaces a group's pods under the group's
 * admitted Workload, so they must ask what it was admitted for). Its replicas may change: new
 * groups queue, removed ones give their quota back. Two LWS features would wait forever on Berth's
 * gate, so a queued LWS may not use them: {@code startupPolicy: LeaderReady} (the workers are made
 * once the leader is ready, the leader waits for the whole group) and the {@code
 * exclusive-topology} annotation (the workers are made once the leader is scheduled); {@code
 * berth.dev/podset-required-topology} places a group in one domain instead.
 */
public final class LeaderWorkerSetQueueRule implements TemplateQueueRule {
  private static final FieldPath OWN_LABEL =
      FieldPath.root("metadata").child("labels").key(Berth.QUEUE_NAME_LABEL);
  static final String EXCLUSIVE_TOPOLOGY = "leaderworkerset.sigs.k8s.io/exclusive-topology";

  /** The pod spec fields a queued LWS's templates keep: what decides quota and placement. */
  private static final List<String> FIXED_SPEC =
      List.of("overhead", "resourceClaims", "nodeSelector", "tolerations", "affinity");

  private final QueueScope scope;

  public LeaderWorkerSetQueueRule(QueueScope scope) {
    this.scope = scope;
  }

  @Override
  public List<FieldError> onCreate(String namespace, JsonNode lws) {
    return check(namespace, lws);
  }

  @Override
  public List<FieldError> onUpdate(String namespace, JsonNode old, JsonNode lws) {
    String queue = old.at("/metadata/labels").path(Berth.QUEUE_NAME_LABEL).asText(null);
    if (queue == null) {
      if (old.at("/spec/leaderWorkerTemplate").equals(lws.at("/spec/leaderWorkerTemplate"))
          && old.at("/metadata/labels").equals(lws.at("/metadata/labels"))) {
        return List.of(); // stored before its namespace was managed: it may still be scaled
      }
      return check(namespace, lws);
    }
    Errors errors = new Errors();
    String now = lws.at("/metadata/labels").path(Berth.QUEUE_NAME_LABEL).asText(null);
    if (!queue.equals(now)) {
      errors.add(
          FieldError.forbidden(
              OWN_LABEL,
              "cannot change or be removed: the LeaderWorkerSet's replica groups are queued in"
                  + " LocalQueue "
                  + queue
                  + " and its pods carry it; delete it and create it again to move it"));
    }
    int size = old.at("/spec/leaderWorkerTemplate/size").asInt(1);
    if (size != lws.at("/spec/leaderWorkerTemplate/size").asInt(1)) {
      errors.add(
          FieldError.forbidden(
              LeaderWorkerSetTemplates.LEADER_WORKER_TEMPLATE.child("size"),
              "a queued LeaderWorkerSet's replica groups are each admitted whole, at the size it"
                  + " was created with ("
                  + size
                  + "); change spec.replicas to add or remove groups, or delete the"
                  + " LeaderWorkerSet and create it again"));
    }
    List<Template> before = LeaderWorkerSetTemplates.withPaths(old);
    List<Template> after = LeaderWorkerSetTemplates.withPaths(lws);
    if (before.size() != after.size()) {
      errors.add(
          FieldError.forbidden(
              LeaderWorkerSetTemplates.LEADER_WORKER_TEMPLATE.child("leaderTemplate"),
              "cannot be added or removed while the LeaderWorkerSet is queued: its groups' podSets"
                  + " were made from it"));
    } else {
      for (int i = 0; i < after.size(); i++) {
        fixedShape(before.get(i), after.get(i), errors);
      }
    }
    if (now != null) {
      errors.addAll(check(namespace, lws));
    }
    return errors.toList();
  }

  /** A template's requests and scheduling fields, as before the update. */
  private static void fixedShape(Template before, Template after, Errors errors) {
    FieldPath spec = after.path().child("spec");
    String why =
        "cannot change while the LeaderWorkerSet is queued: its groups were admitted for what the"
            + " template asked; delete the LeaderWorkerSet and create it again";
    for (String list : new String[] {"containers", "initContainers"}) {
      JsonNode was = before.node().path("spec").path(list);
      JsonNode is = after.node().path("spec").path(list);
      if (was.size() != is.size()) {
        errors.add(FieldError.forbidden(spec.child(list), why));
        continue;
      }
      for (int i = 0; i < is.size(); i++) {
        if (!was.get(i).path("resources").equals(is.get(i).path("resources"))) {
          errors.add(FieldError.forbidden(spec.child(list).index(i).child("resources"), why));
        }
      }
    }
    for (String field : FIXED_SPEC) {
      if (!before.node().path("spec").path(field).equals(after.node().path("spec").path(field))) {
        errors.add(FieldError.forbidden(spec.child(field), why));
      }
    }
  }

  private List<FieldError> check(String namespace, JsonNode lws) {
    List<Template> templates = LeaderWorkerSetTemplates.withPaths(lws);
    JsonNode own = lws.at("/metadata/labels").path(Berth.QUEUE_NAME_LABEL);
    Errors errors = new Errors();
    if (own.isMissingNode()) {
      for (Template t : templates) {
        if (t.node().path("metadata").path("labels").has(Berth.QUEUE_NAME_LABEL)) {
          errors.add(
              FieldError.required(
                  OWN_LABEL,
                  "its pod template "
                      + t.path()
                      + " names a LocalQueue: name it on the LeaderWorkerSet itself, where Berth"
                      + " keeps it for all its replica groups"));
          return errors.toList();
        }
      }
      unqueued(namespace, templates).ifPresent(errors::add);
      return errors.toList();
    }
    for (Template t : templates) {
      JsonNode label = t.node().path("metadata").path("labels").path(Berth.QUEUE_NAME_LABEL);
      if (!label.isMissingNode() && !label.asText().equals(own.asText())) {
        errors.add(
            FieldError.invalid(
                t.path().child("metadata").child("labels").key(Berth.QUEUE_NAME_LABEL),
                label.asText(),
                "the LeaderWorkerSet's own "
                    + Berth.QUEUE_NAME_LABEL
                    + " label names LocalQueue "
                    + own.asText()
                    + ", and its pods are queued in their template's; name the same one in both"));
      }
      TopologyAnnotationRules.validate(
          meta(t.node().path("metadata")),
          t.path().child("metadata").child("annotations"),
          null,
          errors);
    }
    if ("LeaderReady".equals(lws.at("/spec/startupPolicy").asText())) {
      errors.add(
          FieldError.forbidden(
              FieldPath.root("spec").child("startupPolicy"),
              "in a queued LeaderWorkerSet a group's leader waits behind Berth's admission gate"
                  + " until its whole group exists, so its workers, made only once it is ready,"
                  + " would never come; use LeaderCreated (the default)"));
    }
    if (lws.at("/metadata/annotations").has(EXCLUSIVE_TOPOLOGY)) {
      errors.add(
          FieldError.forbidden(
              FieldPath.root("metadata").child("annotations").key(EXCLUSIVE_TOPOLOGY),
              "in a queued LeaderWorkerSet a group's leader waits behind Berth's admission gate"
                  + " until its whole group exists, so its workers, made only once it is"
                  + " scheduled, would never come; put "
                  + Berth.PODSET_REQUIRED_TOPOLOGY
                  + " on its pod templates instead to place each group in one domain"));
    }
    return errors.toList();
  }

  /** A template's metadata; null when absent or not one (the LWS's own validation says why). */
  private static ObjectMeta meta(JsonNode metadata) {
    if (!metadata.isObject()) {
      return null;
    }
    try {
      return Serialization.jsonMapper().convertValue(metadata, ObjectMeta.class);
    } catch (IllegalArgumentException notMetadata) {
      return null;
    }
  }

  /** Refused when the namespace is Berth's and the pods ask for covered resources. */
  private Optional<FieldError> unqueued(String namespace, List<Template> templates) {
    Optional<String> managed = scope.managedBecause(namespace);
    if (managed.isEmpty()) {
      return Optional.empty(); // its pods are not Berth's
    }
    Map<String, BigDecimal> asks = new LinkedHashMap<>();
    for (Template t : templates) {
      asks.putAll(PodResources.totals(t.node().path("spec"), scope.coveredResources(namespace)));
    }
    if (asks.isEmpty()) {
      return Optional.empty(); // its pods hold no quota, and the pod queue rule lets them in
    }
    return Optional.of(
        FieldError.required(
            OWN_LABEL,
            ServingQueueRule.unqueued(
                namespace,
                managed.get(),
                "LeaderWorkerSet",
                asks.keySet(),
                "LeaderWorkerSet",
                scope.localQueues(namespace),
                "queues each of its replica groups whole")));
  }
}
