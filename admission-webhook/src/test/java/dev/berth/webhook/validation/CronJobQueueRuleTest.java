package dev.berth.webhook.validation;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** CronJobs in a managed namespace name a LocalQueue in their job template. */
class CronJobQueueRuleTest {
  private static final CronJobQueueRule RULE =
      new CronJobQueueRule(
          new QueueScopeStandIn(
              Set.of("team-a/a", "defaulted/default"),
              Map.of(
                  "team-a", "ClusterQueue gpus selects it",
                  "defaulted", "it has a LocalQueue named default")));

  private static JsonNode cronJob(String namespace, String templateLabels) {
    return TestObjects.json(
        """
        apiVersion: batch/v1
        kind: CronJob
        metadata: {name: nightly, namespace: %s}
        spec:
          schedule: "0 3 * * *"
          jobTemplate:
            metadata: {labels: {%s}}
            spec:
              template:
                spec:
                  restartPolicy: Never
                  containers: [{name: c, image: trainer}]
        """
            .formatted(namespace, templateLabels));
  }

  @Test
  void aCronJobWithoutAQueueInAManagedNamespaceIsRefusedSayingWhereToPutIt() {
    assertThat(RULE.onCreate("team-a", cronJob("team-a", "app: x")))
        .map(FieldError::toString)
        .containsExactly(
            "spec.jobTemplate.metadata.labels[berth.dev/queue-name]: Required value: namespace"
                + " team-a is managed by Berth (ClusterQueue gpus selects it), so every Job this"
                + " CronJob creates would be refused; name one of the namespace's LocalQueues (a)"
                + " in the job template's labels, which its Jobs inherit");
  }

  @Test
  void aLabelledTemplateADefaultQueueOrAnUnmanagedNamespacePass() {
    assertThat(RULE.onCreate("team-a", cronJob("team-a", "berth.dev/queue-name: a"))).isEmpty();
    assertThat(RULE.onCreate("defaulted", cronJob("defaulted", "app: x"))).isEmpty();
    assertThat(RULE.onCreate("free", cronJob("free", "app: x"))).isEmpty();
  }

  @Test
  void anUpdateIsRefusedOnlyWhenItLeavesTheTemplateWithoutAQueue() {
    JsonNode labelled = cronJob("team-a", "berth.dev/queue-name: a");
    JsonNode unlabelled = cronJob("team-a", "app: x");
    assertThat(RULE.onUpdate("team-a", labelled, unlabelled))
        .extracting(FieldError::path)
        .containsExactly("spec.jobTemplate.metadata.labels[berth.dev/queue-name]");
    // Stored before the namespace was managed: it may still be suspended.
    JsonNode suspended = unlabelled.deepCopy();
    ((com.fasterxml.jackson.databind.node.ObjectNode) suspended.path("spec")).put("suspend", true);
    assertThat(RULE.onUpdate("team-a", unlabelled, suspended)).isEmpty();
    // But its template cannot be changed without naming a queue.
    JsonNode changed = cronJob("team-a", "app: y");
    assertThat(RULE.onUpdate("team-a", unlabelled, changed)).hasSize(1);
  }
}
