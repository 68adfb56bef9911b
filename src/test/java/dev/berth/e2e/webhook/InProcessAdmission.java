package dev.berth.e2e.webhook;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.berth.webhook.server.AdmissionAnswer;
import dev.berth.webhook.server.AdmissionCall;
import dev.berth.webhook.server.AdmissionHandler;
import dev.berth.webhook.server.BerthWebhooks;
import dev.berth.webhook.server.WebhookPaths;
import dev.berth.webhook.validation.QueueScope;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.zjsonpatch.JsonPatch;
import java.util.Map;

/**
 * The webhook handlers called directly, in the API server's order (mutate, then validate): shows
 * what the validators alone decide, as the operator sees it when the webhook is off.
 */
final class InProcessAdmission {
  private static final Map<String, AdmissionHandler> ROUTES =
      BerthWebhooks.routes(WebhookTestCluster.OPERATOR, QueueScope.NONE);
  private static final Map<String, String[]> PATHS =
      Map.of(
          "ClusterQueue",
              new String[] {WebhookPaths.MUTATE_CLUSTER_QUEUE, WebhookPaths.VALIDATE_CLUSTER_QUEUE},
          "Cohort", new String[] {null, WebhookPaths.VALIDATE_COHORT},
          "ResourceFlavor", new String[] {null, WebhookPaths.VALIDATE_RESOURCE_FLAVOR},
          "LocalQueue",
              new String[] {WebhookPaths.MUTATE_LOCAL_QUEUE, WebhookPaths.VALIDATE_LOCAL_QUEUE},
          "Workload", new String[] {WebhookPaths.MUTATE_WORKLOAD, WebhookPaths.VALIDATE_WORKLOAD},
          "WorkloadPriorityClass", new String[] {null, WebhookPaths.VALIDATE_PRIORITY_CLASS},
          "Topology", new String[] {null, WebhookPaths.VALIDATE_TOPOLOGY},
          "Budget", new String[] {null, WebhookPaths.VALIDATE_BUDGET},
          "Job", new String[] {WebhookPaths.MUTATE_JOB, WebhookPaths.VALIDATE_JOB},
          "JobSet", new String[] {WebhookPaths.MUTATE_JOBSET, WebhookPaths.VALIDATE_JOBSET});

  private InProcessAdmission() {}

  static AdmissionAnswer create(String yaml, String username) {
    JsonNode object =
        Serialization.jsonMapper().valueToTree(Serialization.unmarshal(yaml, Map.class));
    String kind = object.path("kind").asText();
    String apiVersion = object.path("apiVersion").asText();
    String group = apiVersion.contains("/") ? apiVersion.substring(0, apiVersion.indexOf('/')) : "";
    String[] paths = PATHS.get(kind);
    AdmissionCall call = call(group, kind, object, username);
    if (paths[0] != null) {
      AdmissionAnswer mutated = ROUTES.get(paths[0]).handle(call);
      if (mutated instanceof AdmissionAnswer.Allow allow && allow.jsonPatch() != null) {
        try {
          object = JsonPatch.apply(Serialization.jsonMapper().readTree(allow.jsonPatch()), object);
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
        call = call(group, kind, object, username);
      }
    }
    return ROUTES.get(paths[1]).handle(call);
  }

  private static AdmissionCall call(String group, String kind, JsonNode object, String username) {
    ObjectNode metadata = (ObjectNode) object.path("metadata");
    return new AdmissionCall(
        "in-process",
        group,
        kind,
        null,
        "CREATE",
        metadata.path("namespace").asText(null),
        metadata.path("name").asText(null),
        username,
        object,
        null);
  }
}
