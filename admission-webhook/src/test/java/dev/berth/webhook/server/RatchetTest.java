package dev.berth.webhook.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.berth.webhook.validation.QueueScope;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Old problems do not block updates; new problems do. */
class RatchetTest {
  private final Map<String, AdmissionHandler> routes =
      BerthWebhooks.routes("operator", QueueScope.NONE);

  private static JsonNode json(String yaml) {
    return Serialization.jsonMapper().valueToTree(Serialization.unmarshal(yaml, Map.class));
  }

  private static AdmissionCall update(JsonNode old, JsonNode object) {
    return new AdmissionCall(
        "u", "berth.dev", "ClusterQueue", null, "UPDATE", null, "cq", "alice", object, old);
  }

  private static final String STORED_BEFORE_THE_RULE =
      """
      apiVersion: berth.dev/v1beta1
      kind: ClusterQueue
      metadata: {name: cq}
      spec:
        namespaceSelector: {matchExpressions: [{key: team, operator: Is}]}
      """;

  @Test
  void finalizerRemovalOnAnAlreadyInvalidObjectIsAllowed() {
    JsonNode old =
        json(
            STORED_BEFORE_THE_RULE.replace(
                "{name: cq}", "{name: cq, finalizers: [berth.dev/resource-in-use]}"));
    JsonNode updated = json(STORED_BEFORE_THE_RULE);
    assertThat(routes.get(WebhookPaths.VALIDATE_CLUSTER_QUEUE).handle(update(old, updated)))
        .isEqualTo(AdmissionAnswer.ALLOW);
  }

  @Test
  void aNewProblemIsStillRefused() {
    JsonNode old = json(STORED_BEFORE_THE_RULE);
    JsonNode updated =
        json(
            STORED_BEFORE_THE_RULE.replace(
                "  namespaceSelector", "  cohortName: Bad_Name\n  namespaceSelector"));
    assertThat(routes.get(WebhookPaths.VALIDATE_CLUSTER_QUEUE).handle(update(old, updated)))
        .isInstanceOfSatisfying(
            AdmissionAnswer.Invalid.class,
            invalid ->
                assertThat(invalid.errors())
                    .extracting(e -> e.path())
                    .containsExactly("spec.cohortName"));
  }
}
