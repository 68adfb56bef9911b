package dev.berth.webhook.validation;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

/**
 * LeaderWorkerSets in a managed namespace name a LocalQueue, once, at creation; a queued one keeps
 * its queue, its group size and what its templates ask for, and may only scale.
 */
class LeaderWorkerSetQueueRuleTest {
  /** team-a: managed, LocalQueues a and b, its ClusterQueue covering nvidia.com/gpu. */
  private static final LeaderWorkerSetQueueRule RULE =
      new LeaderWorkerSetQueueRule(ServingQueueRuleTest.SCOPE);

  /** A LWS of 2 groups of 3, leader and workers asking {@code gpus} GPUs each. */
  static JsonNode lws(String labels, String templateLabels, int gpus) {
    return TestObjects.json(
        """
        apiVersion: leaderworkerset.x-k8s.io/v1
        kind: LeaderWorkerSet
        metadata: {name: serve, namespace: team-a, labels: {%s}}
        spec:
          replicas: 2
          leaderWorkerTemplate:
            size: 3
            leaderTemplate:
              metadata: {labels: {%s}}
              spec:
                containers: [{name: c, image: server, resources: {limits: {nvidia.com/gpu: %d}}}]
            workerTemplate:
              metadata: {labels: {%s}}
              spec:
                containers: [{name: c, image: shard, resources: {limits: {nvidia.com/gpu: %d}}}]
        """
            .formatted(labels, templateLabels, gpus, templateLabels, gpus));
  }

  private static final String QUEUED = "berth.dev/queue-name: a";

  @Test
  void aGpuLeaderWorkerSetWithoutAQueueIsRefusedNamingTheLabelAndTheQueues() {
    assertThat(RULE.onCreate("team-a", lws("", "", 1)))
        .map(FieldError::toString)
        .containsExactly(
            "metadata.labels[berth.dev/queue-name]: Required value: namespace team-a is managed"
                + " by Berth (ClusterQueue gpus selects it) and the LeaderWorkerSet's pods ask for"
                + " nvidia.com/gpu, which its quota covers, so every pod it creates would be"
                + " refused; label the LeaderWorkerSet berth.dev/queue-name with one of the"
                + " namespace's LocalQueues (a, b) so that Berth queues each of its replica groups"
                + " whole");
  }

  @Test
  void oneOutsideAManagedNamespaceOrAskingForNothingCoveredIsLeftAlone() {
    assertThat(RULE.onCreate("team-z", lws("", "", 1))).isEmpty();
    JsonNode cpuOnly =
        TestObjects.json(
            """
            metadata: {name: serve, namespace: team-a}
            spec:
              leaderWorkerTemplate:
                workerTemplate:
                  spec:
                    containers: [{name: c, image: shard, resources: {limits: {cpu: 1}}}]
            """);
    assertThat(RULE.onCreate("team-a", cpuOnly)).isEmpty();
  }

  @Test
  void aQueueOnlyInATemplateOrDifferingFromTheLwssIsRefused() {
    assertThat(RULE.onCreate("team-a", lws("", QUEUED, 1)))
        .map(FieldError::toString)
        .singleElement()
        .asString()
        .startsWith("metadata.labels[berth.dev/queue-name]: Required value: its pod template");
    assertThat(RULE.onCreate("team-a", lws(QUEUED, "berth.dev/queue-name: b", 1)))
        .map(e -> e.path().toString())
        .containsExactly(
            "spec.leaderWorkerTemplate.leaderTemplate.metadata.labels[berth.dev/queue-name]",
            "spec.leaderWorkerTemplate.workerTemplate.metadata.labels[berth.dev/queue-name]");
    assertThat(RULE.onCreate("team-a", lws(QUEUED, QUEUED, 1))).isEmpty();
  }

  @Test
  void leaderReadyAndExclusiveTopologyWouldWaitForeverAndAreRefused() {
    ObjectNode ready = (ObjectNode) lws(QUEUED, QUEUED, 1);
    ((ObjectNode) ready.get("spec")).put("startupPolicy", "LeaderReady");
    assertThat(RULE.onCreate("team-a", ready))
        .map(e -> e.path().toString())
        .containsExactly("spec.startupPolicy");
    ObjectNode exclusive = (ObjectNode) lws(QUEUED, QUEUED, 1);
    ((ObjectNode) exclusive.get("metadata"))
        .putObject("annotations")
        .put(LeaderWorkerSetQueueRule.EXCLUSIVE_TOPOLOGY, "topology.berth.dev/rack");
    assertThat(RULE.onCreate("team-a", exclusive))
        .map(FieldError::toString)
        .singleElement()
        .asString()
        .contains("metadata.annotations[leaderworkerset.sigs.k8s.io/exclusive-topology]")
        .contains("berth.dev/podset-required-topology");
  }

  @Test
  void aQueuedLwsKeepsItsQueueSizeAndRequestsButMayScale() {
    JsonNode old = lws(QUEUED, QUEUED, 1);
    ObjectNode unlabelled = old.deepCopy();
    ((ObjectNode) unlabelled.at("/metadata/labels")).remove("berth.dev/queue-name");
    assertThat(RULE.onUpdate("team-a", old, unlabelled))
        .map(FieldError::toString)
        .singleElement()
        .asString()
        .startsWith(
            "metadata.labels[berth.dev/queue-name]: Forbidden: cannot change or be removed: the"
                + " LeaderWorkerSet's replica groups are queued in LocalQueue a");
    ObjectNode moved = old.deepCopy();
    ((ObjectNode) moved.at("/metadata/labels")).put("berth.dev/queue-name", "b");
    assertThat(RULE.onUpdate("team-a", old, moved))
        .map(e -> e.path().toString())
        .contains("metadata.labels[berth.dev/queue-name]");

    ObjectNode resized = old.deepCopy();
    ((ObjectNode) resized.at("/spec/leaderWorkerTemplate")).put("size", 4);
    assertThat(RULE.onUpdate("team-a", old, resized))
        .map(e -> e.path().toString())
        .containsExactly("spec.leaderWorkerTemplate.size");

    assertThat(RULE.onUpdate("team-a", old, lws(QUEUED, QUEUED, 8)))
        .map(e -> e.path().toString())
        .containsExactly(
            "spec.leaderWorkerTemplate.leaderTemplate.spec.containers[0].resources",
            "spec.leaderWorkerTemplate.workerTemplate.spec.containers[0].resources");

    ObjectNode tolerant = old.deepCopy();
    ((ObjectNode) tolerant.at("/spec/leaderWorkerTemplate/workerTemplate/spec"))
        .putArray("tolerations")
        .addObject()
        .put("operator", "Exists");
    assertThat(RULE.onUpdate("team-a", old, tolerant))
        .map(e -> e.path().toString())
        .containsExactly("spec.leaderWorkerTemplate.workerTemplate.spec.tolerations");

    ObjectNode scaled = old.deepCopy();
    ((ObjectNode) scaled.get("spec")).put("replicas", 5);
    ((ObjectNode) scaled.at("/spec/leaderWorkerTemplate/workerTemplate/spec/containers/0"))
        .put("image", "shard:v2");
    assertThat(RULE.onUpdate("team-a", old, scaled)).as("scale and a new image").isEmpty();
  }

  @Test
  void oneStoredBeforeItsNamespaceWasManagedMayStillBeScaled() {
    JsonNode old = lws("", "", 1);
    ObjectNode scaled = old.deepCopy();
    ((ObjectNode) scaled.get("spec")).put("replicas", 5);
    assertThat(RULE.onUpdate("team-a", old, scaled)).isEmpty();
    assertThat(RULE.onUpdate("team-a", old, lws("", "", 2))).isNotEmpty();
  }
}
