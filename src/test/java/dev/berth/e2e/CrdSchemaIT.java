package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The generated CRDs on a real API server: they install, keep valid objects, refuse bad ones. */
class CrdSchemaIT {
  private static final String NS = "crd-schema";
  private static TestApiServer.Cluster cluster;
  private static KubernetesClient client;

  // A server of its own: on the shared one the operator would add finalizers and write status to
  // these objects, and the schema's behaviour is what is under test here, not the operator's.
  @BeforeAll
  static void setUp() {
    cluster = TestApiServer.dedicated();
    client = cluster.client();
    Namespaces.ensure(client, NS);
  }

  @AfterAll
  static void tearDown() {
    cluster.close();
  }

  @Test
  void everyCrdIsEstablishedWithStatusSubresourceAndShortNames() {
    for (CustomResourceDefinition crd : TestApiServer.berthCrds()) {
      CustomResourceDefinition stored =
          client
              .apiextensions()
              .v1()
              .customResourceDefinitions()
              .withName(crd.getMetadata().getName())
              .get();
      assertThat(TestApiServer.established(stored)).as(crd.getMetadata().getName()).isTrue();
      assertThat(stored.getSpec().getNames().getShortNames()).isNotEmpty();
      assertThat(stored.getSpec().getVersions())
          .singleElement()
          .satisfies(v -> assertThat(v.getName()).isEqualTo("v1beta1"));
    }
  }

  static Stream<Arguments> validObjects() {
    return Stream.of(
        Arguments.of("resourceflavor", Yaml.H100_FLAVOR),
        Arguments.of("topology", Yaml.TOPOLOGY),
        Arguments.of("cohort", Yaml.COHORT),
        Arguments.of("clusterqueue", Yaml.CLUSTER_QUEUE),
        Arguments.of("localqueue", Yaml.LOCAL_QUEUE.formatted(NS)),
        Arguments.of("workloadpriorityclass", Yaml.PRIORITY_CLASS),
        Arguments.of("workload", Yaml.WORKLOAD.formatted(NS)),
        Arguments.of("budget", BUDGET));
  }

  private static final String BUDGET =
      """
      apiVersion: berth.dev/v1beta1
      kind: Budget
      metadata:
        name: team-llm-gpu
      spec:
        localQueue: {namespace: team-llm, name: train}
        period: Month
        timeZone: Europe/Berlin
        limits:
        - {resource: nvidia.com/gpu, hours: "20000"}
        - {resource: cpu, hours: "0.5"}
      """;

  @ParameterizedTest(name = "a valid {0} is stored and read back unchanged")
  @MethodSource("validObjects")
  void validObjectRoundTrips(String kind, String yaml) {
    GenericKubernetesResource sent = Serialization.unmarshal(yaml, GenericKubernetesResource.class);
    GenericKubernetesResource stored = client.resource(sent).create();
    try {
      JsonNode sentJson = Serialization.jsonMapper().valueToTree(sent.getAdditionalProperties());
      JsonNode storedJson =
          Serialization.jsonMapper().valueToTree(stored.getAdditionalProperties());
      assertThat(storedJson).isEqualTo(sentJson);
    } finally {
      client.resource(stored).delete();
    }
  }

  static Stream<Arguments> invalidObjects() {
    return InvalidCrdObjects.all().stream()
        .map(c -> Arguments.of(c.name(), c.yaml().replace("NAMESPACE", NS), c.path(), c.message()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidObjects")
  void invalidObjectIsRejectedWithFieldPath(String name, String yaml, String path, String message) {
    GenericKubernetesResource object =
        Serialization.unmarshal(yaml, GenericKubernetesResource.class);
    assertThatThrownBy(() -> client.resource(object).create())
        .isInstanceOf(KubernetesClientException.class)
        .satisfies(e -> assertThat(((KubernetesClientException) e).getCode()).isEqualTo(422))
        .hasMessageContaining(path)
        .hasMessageContaining(message);
  }

  @Test
  void tooManyPodSetsAreRejected() {
    String podSets =
        IntStream.range(0, 19)
            .mapToObj(
                i ->
                    "  - name: ps"
                        + i
                        + "\n    count: 1\n    template: {spec: {containers: [{name: c, image: busybox}]}}")
            .collect(Collectors.joining("\n"));
    String yaml =
        "apiVersion: berth.dev/v1beta1\nkind: Workload\nmetadata: {name: too-many, namespace: "
            + NS
            + "}\nspec:\n  podSets:\n"
            + podSets
            + "\n";
    GenericKubernetesResource object =
        Serialization.unmarshal(yaml, GenericKubernetesResource.class);
    assertThatThrownBy(() -> client.resource(object).create())
        .hasMessageContaining("spec.podSets")
        .hasMessageContaining("must have at most 18 items");
  }

  @Test
  void localQueueClusterQueueIsImmutable() {
    GenericKubernetesResource lq =
        client
            .resource(
                Serialization.unmarshal(
                    Yaml.LOCAL_QUEUE.formatted(NS).replace("name: team-a-queue", "name: immut"),
                    GenericKubernetesResource.class))
            .create();
    try {
      assertThatThrownBy(
              () ->
                  client
                      .resource(lq)
                      .edit(
                          o -> {
                            spec(o).put("clusterQueue", "other");
                            return o;
                          }))
          .hasMessageContaining("spec.clusterQueue")
          .hasMessageContaining("clusterQueue is immutable");
    } finally {
      client.resource(lq).delete();
    }
  }

  @Test
  void resourceFlavorTopologyNameIsImmutable() {
    GenericKubernetesResource rf =
        client
            .resource(
                Serialization.unmarshal(
                    Yaml.H100_FLAVOR.replace("name: h100", "name: topo-immut"),
                    GenericKubernetesResource.class))
            .create();
    try {
      assertThatThrownBy(
              () ->
                  client
                      .resource(rf)
                      .edit(
                          o -> {
                            spec(o).put("topologyName", "other-topology");
                            return o;
                          }))
          .hasMessageContaining("spec")
          .hasMessageContaining("topologyName is immutable");
    } finally {
      client.resource(rf).delete();
    }
  }

  @Test
  void workloadPodSetsAreImmutableWhileQuotaIsReserved() {
    GenericKubernetesResource wl =
        client
            .resource(
                Serialization.unmarshal(
                    Yaml.WORKLOAD.formatted(NS).replace("name: train", "name: reserved"),
                    GenericKubernetesResource.class))
            .create();
    try {
      GenericKubernetesResource reserved =
          client
              .resource(wl)
              .editStatus(
                  o -> {
                    o.setAdditionalProperty(
                        "status",
                        Map.of(
                            "conditions",
                            java.util.List.of(
                                Map.of(
                                    "type", "QuotaReserved",
                                    "status", "True",
                                    "reason", "QuotaReserved",
                                    "message", "test",
                                    "lastTransitionTime", "2026-01-01T00:00:00Z"))));
                    return o;
                  });
      assertThatThrownBy(
              () ->
                  client
                      .resource(reserved)
                      .edit(
                          o -> {
                            spec(o).put("queueName", "elsewhere");
                            return o;
                          }))
          .hasMessageContaining(
              "queueName, priority and podSets are immutable while quota is reserved");
    } finally {
      client.resource(wl).delete();
    }
  }

  @Test
  void statusSubresourceKeepsSpecAndStatusApart() {
    GenericKubernetesResource cq =
        client
            .resource(
                Serialization.unmarshal(
                    Yaml.CLUSTER_QUEUE.replace("name: team-a", "name: status-split"),
                    GenericKubernetesResource.class))
            .create();
    try {
      // A status write through /status cannot change the spec.
      GenericKubernetesResource afterStatus =
          client
              .resource(cq)
              .editStatus(
                  o -> {
                    spec(o).put("cohortName", "changed-through-status");
                    o.setAdditionalProperty("status", Map.of("pendingWorkloads", 7));
                    return o;
                  });
      assertThat(spec(afterStatus).get("cohortName")).isEqualTo("ai");
      assertThat(status(afterStatus).get("pendingWorkloads")).isEqualTo(7);

      // A spec write cannot change the status.
      GenericKubernetesResource afterSpec =
          client
              .resource(afterStatus)
              .edit(
                  o -> {
                    spec(o).put("queueingStrategy", "StrictFIFO");
                    o.setAdditionalProperty("status", Map.of("pendingWorkloads", 99));
                    return o;
                  });
      assertThat(spec(afterSpec).get("queueingStrategy")).isEqualTo("StrictFIFO");
      assertThat(status(afterSpec).get("pendingWorkloads")).isEqualTo(7);
    } finally {
      client.resource(cq).delete();
    }
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> spec(GenericKubernetesResource o) {
    return (Map<String, Object>) o.getAdditionalProperties().get("spec");
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> status(GenericKubernetesResource o) {
    return (Map<String, Object>) o.getAdditionalProperties().get("status");
  }
}
