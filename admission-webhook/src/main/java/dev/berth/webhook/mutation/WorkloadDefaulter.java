package dev.berth.webhook.mutation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Workload defaults: a podSet without a count has one pod, a lone unnamed podSet is "main" (the
 * name Berth gives a Job's podSet), and a workload is active unless deactivated.
 */
public final class WorkloadDefaulter implements Defaulter {
  @Override
  public void apply(ObjectNode wl, String namespace) {
    ObjectNode spec = Json.object(wl, "spec");
    if (spec == null) {
      return;
    }
    if (!spec.has("active") || spec.get("active").isNull()) {
      spec.put("active", true);
    }
    JsonNode podSets = spec.get("podSets");
    if (podSets == null || !podSets.isArray()) {
      return;
    }
    for (JsonNode podSet : podSets) {
      if (podSet instanceof ObjectNode ps) {
        if (!ps.has("count") || ps.get("count").isNull()) {
          ps.put("count", 1);
        }
        if (podSets.size() == 1) {
          Json.defaultText(ps, "name", "main");
        }
      }
    }
  }
}
