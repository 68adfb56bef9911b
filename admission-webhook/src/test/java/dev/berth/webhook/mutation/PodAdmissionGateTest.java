package dev.berth.webhook.mutation;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.berth.webhook.validation.QueueScope;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Which pods the pod webhook queues at creation: gate, mark, queue and stamp. */
class PodAdmissionGateTest {
  /** team: covers nvidia.com/gpu, has a LocalQueue named default; plain: neither. */
  static final QueueScope SCOPE =
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

  private static final PodAdmissionGate GATE =
      new PodAdmissionGate(
          SCOPE, Clock.fixed(Instant.parse("2026-01-02T03:04:05.678Z"), ZoneOffset.UTC));

  /**
   * A case: the pod's labels, owner references and resources in YAML, its namespace, and what the
   * webhook leaves: its queue label (null: none), and whether it is gated and marked.
   */
  record Case(
      String name,
      String labels,
      String owners,
      String resources,
      String namespace,
      String queue,
      boolean queued) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static final String GPU = "{limits: {nvidia.com/gpu: \"1\"}}";
  private static final String CPU = "{requests: {cpu: \"1\"}}";
  private static final String JOB =
      "[{apiVersion: batch/v1, kind: Job, name: j, uid: u, controller: true}]";

  static List<Case> cases() {
    return List.of(
        new Case(
            "a labelled plain pod", "{berth.dev/queue-name: a}", "[]", CPU, "plain", "a", true),
        new Case(
            "a Job's pod with the queue label",
            "{berth.dev/queue-name: a}",
            JOB,
            GPU,
            "team",
            "a",
            false),
        new Case(
            "an unlabelled GPU pod takes the default queue",
            "{}",
            "[]",
            GPU,
            "team",
            "default",
            true),
        new Case("an unlabelled pod asking nothing covered", "{}", "[]", CPU, "team", null, false),
        new Case(
            "an unlabelled GPU pod without a default queue", "{}", "[]", GPU, "plain", null, false),
        new Case("a Job's unlabelled GPU pod", "{}", JOB, GPU, "team", null, false),
        new Case(
            "a Deployment's pod (its ReplicaSet's) with the queue label",
            "{berth.dev/queue-name: a}",
            "[{apiVersion: apps/v1, kind: ReplicaSet, name: web-1, uid: u, controller: true}]",
            GPU,
            "team",
            "a",
            true),
        new Case(
            "a StatefulSet's pod with the queue label",
            "{berth.dev/queue-name: a}",
            "[{apiVersion: apps/v1, kind: StatefulSet, name: web, uid: u, controller: true}]",
            GPU,
            "team",
            "a",
            true),
        new Case(
            "a DaemonSet's pod with the queue label",
            "{berth.dev/queue-name: a}",
            "[{apiVersion: apps/v1, kind: DaemonSet, name: agent, uid: u, controller: true}]",
            GPU,
            "team",
            "a",
            false));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void create(Case c) {
    ObjectNode pod =
        (ObjectNode)
            Serialization.jsonMapper()
                .valueToTree(
                    Serialization.unmarshal(
                        """
                        apiVersion: v1
                        kind: Pod
                        metadata: {name: p, labels: %s, ownerReferences: %s}
                        spec:
                          schedulingGates: [{name: example.com/other}]
                          containers: [{name: c, image: x, resources: %s}]
                        """
                            .formatted(c.labels(), c.owners(), c.resources()),
                        java.util.Map.class));
    GATE.apply(pod, c.namespace());
    assertThat(pod.at("/metadata/labels/berth.dev~1queue-name").asText(null)).isEqualTo(c.queue());
    List<String> gates = new ArrayList<>();
    pod.at("/spec/schedulingGates").forEach(g -> gates.add(g.path("name").asText()));
    if (c.queued()) {
      assertThat(gates).containsExactly("example.com/other", "berth.dev/admission");
      assertThat(pod.at("/metadata/labels/berth.dev~1managed").asText()).isEqualTo("true");
      assertThat(pod.at("/metadata/annotations/berth.dev~1submitted-at").asText())
          .isEqualTo("2026-01-02T03:04:05.678Z");
      GATE.apply(pod, c.namespace());
      assertThat(pod.at("/spec/schedulingGates")).as("applied twice, gated once").hasSize(2);
    } else {
      assertThat(gates).containsExactly("example.com/other");
      assertThat(pod.at("/metadata/labels").has("berth.dev/managed")).isFalse();
    }
  }
}
