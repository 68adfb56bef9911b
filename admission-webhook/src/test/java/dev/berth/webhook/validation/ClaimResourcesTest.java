package dev.berth.webhook.validation;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.berth.webhook.dra.DeviceClassMappings;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The pod queue rule on pods that hold devices through ResourceClaims (docs/dra.md). */
class ClaimResourcesTest {
  private static final String OPERATOR = "system:serviceaccount:berth-system:berth";

  private static final Map<String, String> TEMPLATES =
      Map.of(
          "two-gpus", "{deviceClassName: gpu.example.com, count: 2}",
          "fpga", "{deviceClassName: fpga.example.com}");

  private static final String JOB =
      """
      apiVersion: batch/v1
      kind: Job
      metadata: {name: train, namespace: team-a, uid: job-uid, labels: {berth.dev/queue-name: a}}
      spec:
        suspend: false
        selector: {matchLabels: {batch.kubernetes.io/controller-uid: job-uid}}
        template:
          spec:
            resourceClaims: [{name: gpus, resourceClaimTemplateName: two-gpus}]
            containers: [{name: c, image: trainer}]
      """;

  /** Job serve: its pods share ResourceClaim shared (4 GPUs), each has a two-gpus template too. */
  private static final String SERVE =
      JOB.replace("{name: train,", "{name: serve,")
          .replace("uid: job-uid,", "uid: serve-uid,")
          .replace(
              "resourceClaims: [{name: gpus, resourceClaimTemplateName: two-gpus}]",
              "resourceClaims: [{name: gpus, resourceClaimTemplateName: two-gpus},"
                  + " {name: s, resourceClaimName: shared}]");

  /** What the operator charged the Jobs' Workloads when it created them, by owner UID. */
  private static final Map<String, String> WORKLOADS =
      Map.of(
          "job-uid",
          "{metadata: {name: job-train, annotations: {berth.dev/device-requests:"
              + " '{\"main\":{\"example.com/gpu\":2}}'}}}",
          "serve-uid",
          "{metadata: {name: job-serve, annotations: {berth.dev/device-requests:"
              + " '{\"main\":{\"example.com/gpu\":2}}', berth.dev/shared-device-requests:"
              + " '{\"main\":{\"example.com/gpu\":4}}'}}}");

  /** team-a as PodQueueRuleTest has it, covering example.com/gpu, to which gpu.example.com maps. */
  static class WithClaims extends PodQueueRuleTest.TeamA {
    @Override
    public Set<String> coveredResources(String namespace) {
      return Set.of("example.com/gpu");
    }

    @Override
    public Optional<JsonNode> job(String namespace, String name) {
      return switch (name) {
        case "train" -> Optional.of(TestObjects.json(JOB));
        case "serve" -> Optional.of(TestObjects.json(SERVE));
        default -> Optional.empty();
      };
    }

    @Override
    public List<JsonNode> workloadsOwnedBy(String namespace, String ownerUid) {
      return Optional.ofNullable(WORKLOADS.get(ownerUid)).map(ClaimResourcesTest::yaml).stream()
          .toList();
    }

    @Override
    public Optional<JsonNode> claim(String namespace, String name) {
      return name.equals("shared")
          ? Optional.of(
              yaml(
                  "{spec: {devices: {requests: [{name: r, exactly: {deviceClassName:"
                      + " gpu.example.com, count: 4}}]}}}"))
          : Optional.empty();
    }

    @Override
    public DeviceClassMappings deviceClasses() {
      return new DeviceClassMappings(Map.of("gpu.example.com", "example.com/gpu"));
    }

    @Override
    public Optional<JsonNode> template(String namespace, String name) {
      return Optional.ofNullable(TEMPLATES.get(name))
          .map(r -> yaml("{spec: {spec: {devices: {requests: [{name: r, exactly: " + r + "}]}}}}"));
    }
  }

  private static final QueueScope SCOPE = new WithClaims();

  /** A template of 8 GPUs: two-gpus made again bigger after a Workload was charged. */
  static final JsonNode EIGHT_GPUS =
      yaml(
          "{spec: {spec: {devices: {requests: [{name: r, exactly: {deviceClassName:"
              + " gpu.example.com, count: 8}}]}}}}");

  static JsonNode yaml(String text) {
    try {
      return new com.fasterxml.jackson.databind.ObjectMapper(
              new com.fasterxml.jackson.dataformat.yaml.YAMLFactory())
          .readTree(text);
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }

  private static final PodQueueRule RULE = new PodQueueRule(new RequestGuard(OPERATOR), SCOPE);

  /** PodQueueRuleTest's pod, asking for no resource but through {@code claims}. */
  private static List<FieldError> create(String namespace, String owner, String claims) {
    return create(RULE, namespace, owner, claims);
  }

  private static List<FieldError> create(
      PodQueueRule rule, String namespace, String owner, String claims) {
    JsonNode pod = TestObjects.json(PodQueueRuleTest.pod(namespace, owner, "{}"));
    ((com.fasterxml.jackson.databind.node.ObjectNode) pod.get("spec"))
        .set("resourceClaims", yaml(claims));
    return rule.onCreate(namespace, pod, "dana");
  }

  private static final String OWNED_BY_JOB =
      "{apiVersion: batch/v1, kind: Job, name: train, uid: job-uid, controller: true}";
  private static final String TWO_GPUS = "[{name: gpus, resourceClaimTemplateName: two-gpus}]";

  @Test
  void aBarePodWithAClaimTemplateOfAMappedClassIsRefusedAtItsClaim() {
    assertThat(create("team-a", "", TWO_GPUS))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.path()).isEqualTo("spec.resourceClaims[0]");
              assertThat(e.message()).contains("asks for example.com/gpu");
            });
  }

  @Test
  void theManagedJobsOwnPodIsAllowedAndOneWithAnExtraClaimIsNot() {
    assertThat(create("team-a", OWNED_BY_JOB, TWO_GPUS)).isEmpty();
    assertThat(
            create(
                "team-a",
                OWNED_BY_JOB,
                "[{name: gpus, resourceClaimTemplateName: two-gpus},"
                    + " {name: more, resourceClaimTemplateName: two-gpus}]"))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.path()).isEqualTo("metadata.ownerReferences[0]");
              assertThat(e.message())
                  .contains("asks for 4 example.com/gpu and the template of Job train")
                  .contains("for 2");
            });
  }

  private static final String OWNED_BY_SERVE =
      "{apiVersion: batch/v1, kind: Job, name: serve, uid: serve-uid, controller: true}";
  private static final String SERVE_CLAIMS =
      "[{name: gpus, resourceClaimTemplateName: two-gpus}, {name: s, resourceClaimName: shared}]";

  @Test
  void aManagedJobsPodMayHoldTheSharedClaimItsWorkloadWasChargedOnce() {
    assertThat(create("team-a", OWNED_BY_SERVE, SERVE_CLAIMS)).isEmpty();
  }

  @Test
  void aTemplateReplacedByABiggerOneAfterTheWorkloadWasChargedIsRefused() {
    // The platform's two-gpus template deleted and made again with 8: the Job's template and its
    // pod agree, but the Workload was charged 2 a pod.
    QueueScope remade =
        new WithClaims() {
          @Override
          public Optional<JsonNode> template(String namespace, String name) {
            return Optional.of(EIGHT_GPUS);
          }
        };
    assertRefusedAtOwner(
        remade,
        TWO_GPUS,
        "the pod's claims hold 8 example.com/gpu and its Workload was charged 2 a pod when it was"
            + " created");
  }

  @Test
  void aSharedClaimTheWorkloadWasNotChargedIsRefused() {
    // Job train's Workload was charged no shared claim: a pod of it naming one (its template
    // naming it too, as if the Job were made so) holds devices nobody was charged.
    QueueScope sharing =
        new WithClaims() {
          @Override
          public Optional<JsonNode> job(String namespace, String name) {
            return Optional.of(
                TestObjects.json(
                    SERVE
                        .replace("{name: serve,", "{name: train,")
                        .replace("uid: serve-uid,", "uid: job-uid,")));
          }
        };
    assertRefusedAtOwner(
        sharing,
        SERVE_CLAIMS,
        "the pod's claims hold 4 example.com/gpu and its Workload was charged 0 once for its"
            + " shared claims");
  }

  @Test
  void aRunningJobWithoutAWorkloadGetsNoPodWithDevices() {
    QueueScope noWorkload =
        new WithClaims() {
          @Override
          public List<JsonNode> workloadsOwnedBy(String namespace, String ownerUid) {
            return List.of();
          }
        };
    assertRefusedAtOwner(
        noWorkload,
        TWO_GPUS,
        "Job train has no Workload, so the devices of the pod's claims are charged to no queue");
  }

  /** A pod of Job train with {@code claims}, refused in {@code scope} at its owner. */
  private static void assertRefusedAtOwner(QueueScope scope, String claims, String messageStart) {
    PodQueueRule rule = new PodQueueRule(new RequestGuard(OPERATOR), scope);
    assertThat(create(rule, "team-a", OWNED_BY_JOB, claims))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.path()).isEqualTo("metadata.ownerReferences[0]");
              assertThat(e.message()).startsWith(messageStart);
            });
  }

  @Test
  void anUnmappedClassOrAMissingTemplateIsRefusedWithTheFieldPath() {
    assertThat(create("team-a", OWNED_BY_JOB, "[{name: f, resourceClaimTemplateName: fpga}]"))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.path()).isEqualTo("spec.resourceClaims[0]");
              assertThat(e.message())
                  .startsWith(
                      "ResourceClaimTemplate fpga spec.spec.devices.requests[0].exactly"
                          + ".deviceClassName: DeviceClass \"fpga.example.com\" is mapped to no"
                          + " quota resource");
            });
    assertThat(create("team-a", "", "[{name: f, resourceClaimTemplateName: gone}]"))
        .singleElement()
        .satisfies(
            e ->
                assertThat(e.path()).isEqualTo("spec.resourceClaims[0].resourceClaimTemplateName"));
  }

  @Test
  void anUnmanagedNamespaceIsNotAsked() {
    assertThat(create("free", "", "[{name: f, resourceClaimTemplateName: fpga}]")).isEmpty();
  }
}
