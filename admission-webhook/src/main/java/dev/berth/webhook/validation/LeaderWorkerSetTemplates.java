package dev.berth.webhook.validation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;

/**
 * The pod templates of a LeaderWorkerSet: {@code spec.leaderWorkerTemplate.leaderTemplate}
 * (optional; without it the leader is made from the worker template) and {@code .workerTemplate},
 * with their field paths.
 */
public final class LeaderWorkerSetTemplates {
  private LeaderWorkerSetTemplates() {}

  static final FieldPath LEADER_WORKER_TEMPLATE =
      FieldPath.root("spec").child("leaderWorkerTemplate");

  /** A template, where it is in the LWS. */
  record Template(FieldPath path, JsonNode node) {}

  /** The templates present, leader first, each a JSON object. */
  static List<Template> withPaths(JsonNode lws) {
    List<Template> templates = new ArrayList<>();
    JsonNode lwt = lws.path("spec").path("leaderWorkerTemplate");
    for (String field : new String[] {"leaderTemplate", "workerTemplate"}) {
      JsonNode template = lwt.path(field);
      if (template.isObject()) {
        templates.add(new Template(LEADER_WORKER_TEMPLATE.child(field), template));
      }
    }
    return templates;
  }

  /** The templates present, leader first, to be defaulted in place. */
  public static List<ObjectNode> of(ObjectNode lws) {
    return withPaths(lws).stream().map(t -> (ObjectNode) t.node()).toList();
  }
}
