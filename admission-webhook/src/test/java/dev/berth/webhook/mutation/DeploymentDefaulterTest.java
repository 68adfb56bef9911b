package dev.berth.webhook.mutation;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.berth.webhook.validation.QueueScope;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** A Deployment's queue and priority reach its pods through its pod template. */
class DeploymentDefaulterTest {
  /** team: covers nvidia.com/gpu and has a LocalQueue named default; plain: neither. */
  private static final QueueScope SCOPE =
      new QueueScope() {
        @Override
        public boolean exists(String namespace, String name) {
          return namespace.equals("team") && name.equals("default");
        }

        @Override
        public Optional<String> managedBecause(String namespace) {
          return Optional.empty();
        }

        @Override
        public Optional<JsonNode> jobSet(String namespace, String name) {
          return Optional.empty();
        }

        @Override
        public Set<String> coveredResources(String namespace) {
          return namespace.equals("team") ? Set.of("nvidia.com/gpu") : Set.of();
        }
      };

  private static final DeploymentDefaulter DEFAULTER = new DeploymentDefaulter(SCOPE);

  private static ObjectNode deployment(String labels, String podLabels, String resources)
      throws Exception {
    return (ObjectNode)
        new ObjectMapper(new YAMLFactory())
            .readTree(
                """
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: serve, labels: {%s}}
                spec:
                  template:
                    metadata: {labels: {app: serve, %s}}
                    spec:
                      containers: [{name: c, image: server, resources: %s}]
                """
                    .formatted(labels, podLabels, resources));
  }

  private static JsonNode podLabels(ObjectNode deployment) {
    return deployment.at("/spec/template/metadata/labels");
  }

  @Test
  void theDeploymentsQueueAndPriorityAreCopiedToItsPodTemplate() throws Exception {
    ObjectNode d =
        deployment("berth.dev/queue-name: llm, berth.dev/priority-class: serving", "", "{}");
    DEFAULTER.apply(d, "plain");
    assertThat(podLabels(d).path("berth.dev/queue-name").asText()).isEqualTo("llm");
    assertThat(podLabels(d).path("berth.dev/priority-class").asText()).isEqualTo("serving");
  }

  @Test
  void theTemplatesOwnLabelsAreKept() throws Exception {
    ObjectNode d =
        deployment(
            "berth.dev/priority-class: serving",
            "berth.dev/queue-name: llm, berth.dev/priority-class: batch",
            "{}");
    DEFAULTER.apply(d, "team");
    assertThat(podLabels(d).path("berth.dev/queue-name").asText()).isEqualTo("llm");
    assertThat(podLabels(d).path("berth.dev/priority-class").asText()).isEqualTo("batch");
    assertThat(d.at("/metadata/labels").has("berth.dev/queue-name")).isFalse();
  }

  @Test
  void anUnqueuedGpuDeploymentGetsTheDefaultQueueWhereThereIsOne() throws Exception {
    ObjectNode gpus = deployment("", "", "{limits: {nvidia.com/gpu: 1}}");
    DEFAULTER.apply(gpus, "team");
    assertThat(gpus.at("/metadata/labels").path("berth.dev/queue-name").asText())
        .isEqualTo("default");
    assertThat(podLabels(gpus).path("berth.dev/queue-name").asText()).isEqualTo("default");

    ObjectNode cpu = deployment("", "", "{requests: {cpu: 1}}");
    DEFAULTER.apply(cpu, "team");
    assertThat(podLabels(cpu).has("berth.dev/queue-name")).isFalse();
    ObjectNode elsewhere = deployment("", "", "{limits: {nvidia.com/gpu: 1}}");
    DEFAULTER.apply(elsewhere, "plain");
    assertThat(podLabels(elsewhere).has("berth.dev/queue-name")).isFalse();
  }
}
