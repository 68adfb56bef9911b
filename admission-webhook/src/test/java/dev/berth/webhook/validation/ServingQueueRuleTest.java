package dev.berth.webhook.validation;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Deployments and StatefulSets in a managed namespace name a LocalQueue for their pods, once, at
 * creation; a queued StatefulSet keeps its size.
 */
class ServingQueueRuleTest {
  private static final QueueScopeStandIn QUEUES =
      new QueueScopeStandIn(
          Set.of("team-a/a", "team-a/b"), Map.of("team-a", "ClusterQueue gpus selects it"));

  /** team-a's ClusterQueue covers nvidia.com/gpu. */
  static final QueueScope SCOPE =
      new QueueScope() {
        @Override
        public boolean exists(String namespace, String name) {
          return QUEUES.exists(namespace, name);
        }

        @Override
        public List<String> localQueues(String namespace) {
          return QUEUES.localQueues(namespace);
        }

        @Override
        public Optional<String> managedBecause(String namespace) {
          return QUEUES.managedBecause(namespace);
        }

        @Override
        public Optional<JsonNode> jobSet(String namespace, String name) {
          return Optional.empty();
        }

        @Override
        public Set<String> coveredResources(String namespace) {
          return namespace.equals("team-a") ? Set.of("nvidia.com/gpu") : Set.of();
        }
      };

  private static final ServingQueueRule RULE = ServingQueueRule.forDeployments(SCOPE);
  private static final ServingQueueRule SETS = ServingQueueRule.forStatefulSets(SCOPE);

  private static final String GPU = "{limits: {nvidia.com/gpu: 1}}";

  private static JsonNode deployment(String labels, String podLabels, String resources) {
    return TestObjects.json(
        """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: serve, namespace: team-a, labels: {%s}}
        spec:
          replicas: 4
          selector: {matchLabels: {app: serve}}
          template:
            metadata: {labels: {app: serve, %s}}
            spec:
              containers: [{name: c, image: server, resources: %s}]
        """
            .formatted(labels, podLabels, resources));
  }

  @Test
  void aGpuDeploymentWithoutAQueueIsRefusedNamingTheLabelAndTheQueues() {
    assertThat(RULE.onCreate("team-a", deployment("", "", GPU)))
        .map(FieldError::toString)
        .containsExactly(
            "spec.template.metadata.labels[berth.dev/queue-name]: Required value: namespace"
                + " team-a is managed by Berth (ClusterQueue gpus selects it) and the"
                + " Deployment's pods ask for nvidia.com/gpu, which its quota covers, so every pod"
                + " it creates would be refused; label the Deployment (or its pod template)"
                + " berth.dev/queue-name with one of the namespace's LocalQueues (a, b) so that"
                + " Berth queues each of its pods");
  }

  @Test
  void aQueuedTemplateACpuOnlyDeploymentOrAnUnmanagedNamespacePass() {
    assertThat(RULE.onCreate("team-a", deployment("", "berth.dev/queue-name: a", GPU))).isEmpty();
    assertThat(RULE.onCreate("team-a", deployment("", "", "{requests: {cpu: 1}}"))).isEmpty();
    assertThat(RULE.onCreate("free", deployment("", "", GPU))).isEmpty();
  }

  @Test
  void aDeploymentAndItsTemplateNamingDifferentQueuesIsRefused() {
    assertThat(
            RULE.onCreate(
                "team-a", deployment("berth.dev/queue-name: a", "berth.dev/queue-name: b", GPU)))
        .extracting(FieldError::path)
        .containsExactly("spec.template.metadata.labels[berth.dev/queue-name]");
  }

  @Test
  void anUpdateIsCheckedOnlyWhenItChangesTheTemplateOrTheLabels() {
    JsonNode unlabelled = deployment("", "", GPU);
    JsonNode scaled = unlabelled.deepCopy();
    ((com.fasterxml.jackson.databind.node.ObjectNode) scaled.path("spec")).put("replicas", 8);
    // Stored before the namespace was managed: it may still be scaled.
    assertThat(RULE.onUpdate("team-a", unlabelled, scaled)).isEmpty();
    JsonNode queued = deployment("", "berth.dev/queue-name: a", GPU);
    assertThat(RULE.onUpdate("team-a", queued, unlabelled))
        .extracting(FieldError::path)
        .containsExactly("spec.template.metadata.labels[berth.dev/queue-name]");
  }

  /** {@code deployment}'s fields, as a StatefulSet the webhook queued as a group of {@code n}. */
  private static JsonNode statefulSet(String podLabels, int replicas) {
    com.fasterxml.jackson.databind.node.ObjectNode set =
        (com.fasterxml.jackson.databind.node.ObjectNode) deployment("", podLabels, GPU);
    set.put("kind", "StatefulSet");
    ((com.fasterxml.jackson.databind.node.ObjectNode) set.path("spec")).put("replicas", replicas);
    return set;
  }

  @Test
  void aQueuedStatefulSetCannotBeResizedOrRegrouped() {
    String queued = "berth.dev/queue-name: a, berth.dev/pod-group-name: statefulset-serve";
    assertThat(SETS.onUpdate("team-a", statefulSet(queued, 3), statefulSet(queued, 5)))
        .map(FieldError::toString)
        .containsExactly(
            "spec.replicas: Forbidden: a queued StatefulSet is one pod group admitted whole, of"
                + " the size it was created with; to change it, delete the StatefulSet and create"
                + " it again (it has 3)");
    assertThat(
            SETS.onUpdate(
                "team-a",
                statefulSet(queued, 3),
                statefulSet("berth.dev/queue-name: a, berth.dev/pod-group-name: other", 3)))
        .extracting(FieldError::path)
        .containsExactly("spec.template.metadata.labels[berth.dev/pod-group-name]");
    assertThat(SETS.onUpdate("team-a", statefulSet(queued, 3), statefulSet(queued, 3))).isEmpty();
    // A Deployment's pods are each on their own: it scales freely.
    assertThat(RULE.onUpdate("team-a", statefulSet(queued, 3), statefulSet(queued, 5))).isEmpty();
    assertThat(SETS.onCreate("team-a", statefulSet("", 3)))
        .singleElement()
        .satisfies(e -> assertThat(e.toString()).contains("StatefulSet (or its pod template)"));
  }
}
