package dev.berth.webhook.mutation;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import org.junit.jupiter.api.Test;

/**
 * A Deployment's or a StatefulSet's queue and priority reach its pods through its pod template; a
 * StatefulSet's pods are one group.
 */
class ServingDefaulterTest {
  /** team: covers nvidia.com/gpu and has a LocalQueue named default; plain: neither. */
  private static final ServingDefaulter DEFAULTER =
      ServingDefaulter.forDeployments(PodAdmissionGateTest.SCOPE);

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

  @Test
  void aQueuedStatefulSetsPodsAreOneGroupOfItsReplicasStartedInParallel() throws Exception {
    ObjectNode set = deployment("berth.dev/queue-name: llm", "", "{}");
    set.put("kind", "StatefulSet");
    ((ObjectNode) set.path("spec")).put("replicas", 3);
    ServingDefaulter.forStatefulSets(PodAdmissionGateTest.SCOPE).apply(set, "plain");
    assertThat(podLabels(set).path("berth.dev/pod-group-name").asText())
        .isEqualTo("statefulset-serve");
    assertThat(
            set.at("/spec/template/metadata/annotations/berth.dev~1pod-group-total-count").asText())
        .isEqualTo("3");
    assertThat(set.at("/spec/podManagementPolicy").asText()).isEqualTo("Parallel");

    ObjectNode unqueued = deployment("", "", "{requests: {cpu: 1}}");
    ServingDefaulter.forStatefulSets(PodAdmissionGateTest.SCOPE).apply(unqueued, "team");
    assertThat(podLabels(unqueued).has("berth.dev/pod-group-name")).isFalse();
    assertThat(unqueued.at("/spec").has("podManagementPolicy")).isFalse();
  }
}
