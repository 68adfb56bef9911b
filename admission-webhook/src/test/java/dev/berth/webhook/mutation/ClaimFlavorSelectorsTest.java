package dev.berth.webhook.mutation;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.berth.api.v1beta1.FlavorDeviceSelector;
import dev.berth.webhook.dra.DeviceClassMappings;
import dev.berth.webhook.dra.FlavorDeviceSelectors;
import dev.berth.webhook.validation.QueueScope;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The claims Kubernetes makes for an admitted Job's pods get, per request, the device selectors of
 * the flavor their resource was admitted on; other claims are left as written.
 */
class ClaimFlavorSelectorsTest {
  private static final String AT_LEAST_80GI =
      "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('80Gi')) >= 0";
  private static final String NOT_A100 = "device.attributes['gpu.nvidia.com'].model != 'A100'";

  private static JsonNode json(String yaml) {
    return Serialization.jsonMapper().valueToTree(Serialization.unmarshal(yaml, Map.class));
  }

  private static final JsonNode POD =
      json(
          """
          metadata:
            name: train-abc
            namespace: team-a
            uid: pod-1
            ownerReferences: [{apiVersion: batch/v1, kind: Job, name: train, uid: job-1, controller: true}]
          """);

  private static final JsonNode JOB =
      json("metadata: {name: train, namespace: team-a, uid: job-1}");

  private static final JsonNode WORKLOAD =
      json(
          """
          metadata: {name: job-train, namespace: team-a}
          status:
            admission:
              clusterQueue: team-a
              podSetAssignments:
              - name: main
                flavors: {nvidia.com/gpu: gpus-80gi, cpu: default}
          """);

  /** A Deployment's pod, queued on its own: its Workload is its own. */
  private static final JsonNode SERVING_POD =
      json(
          """
          metadata:
            name: web-abc
            uid: pod-2
            labels: {berth.dev/queue-name: a, berth.dev/managed: "true"}
            ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-5d, uid: rs, controller: true}]
          """);

  /** A LeaderWorkerSet's worker: its replica group's Workload, pod set worker. */
  private static final JsonNode GROUP_POD =
      json(
          """
          metadata:
            name: lws-0-1
            uid: pod-3
            labels: {berth.dev/queue-name: a, berth.dev/managed: "true", berth.dev/pod-group-name: lws-0}
            annotations: {berth.dev/pod-group-role: worker}
            ownerReferences: [{apiVersion: apps/v1, kind: StatefulSet, name: lws-0, uid: sts, controller: true}]
          """);

  /** A PyTorchJob's worker: the job's Workload, pod set worker. */
  private static final JsonNode PYTORCH_POD =
      json(
          """
          metadata:
            name: pt-worker-0
            uid: pod-4
            labels: {training.kubeflow.org/replica-type: worker}
            ownerReferences: [{apiVersion: kubeflow.org/v1, kind: PyTorchJob, name: pt, uid: pt-1, controller: true}]
          """);

  /** A worker of the LWS's next replica group, still behind Berth's gate. */
  private static final JsonNode GATED_POD =
      json(
          """
          metadata:
            name: lws-1-1
            uid: pod-5
            labels: {berth.dev/queue-name: a, berth.dev/managed: "true", berth.dev/pod-group-name: lws-1}
            annotations: {berth.dev/pod-group-role: worker}
          spec:
            schedulingGates: [{name: berth.dev/admission}]
          """);

  /** A Deployment's pod, released, whose template bigger was made again after its charge. */
  private static final JsonNode REMADE_POD =
      json(
          """
          metadata:
            name: web-big
            uid: pod-6
            labels: {berth.dev/queue-name: a, berth.dev/managed: "true"}
          spec:
            resourceClaims: [{name: gpus, resourceClaimTemplateName: remade}]
          """);

  private static final Map<String, JsonNode> PODS =
      Map.of(
          "web-big",
          REMADE_POD,
          "lws-1-1",
          GATED_POD,
          "train-abc",
          POD,
          "web-abc",
          SERVING_POD,
          "lws-0-1",
          GROUP_POD,
          "pt-worker-0",
          PYTORCH_POD);

  /** Admitted on gpus-80gi for nvidia.com/gpu, in pod set {@code podSet}. */
  private static JsonNode admitted(String podSet) {
    return json(WORKLOAD.toString().replace("\"name\":\"main\"", "\"name\":\"" + podSet + "\""));
  }

  /** The cluster as the webhook would read it: one admitted Job, one flavor with selectors. */
  private static final QueueScope CLUSTER =
      new QueueScope() {
        @Override
        public boolean exists(String namespace, String name) {
          return true;
        }

        @Override
        public Optional<String> managedBecause(String namespace) {
          return Optional.of("it has a LocalQueue");
        }

        @Override
        public Optional<JsonNode> jobSet(String namespace, String name) {
          return Optional.empty();
        }

        @Override
        public Optional<JsonNode> pod(String namespace, String name) {
          return Optional.ofNullable(PODS.get(name));
        }

        @Override
        public Optional<JsonNode> job(String namespace, String name) {
          return name.equals("train") ? Optional.of(JOB) : Optional.empty();
        }

        @Override
        public List<JsonNode> workloadsOwnedBy(String namespace, String ownerUid) {
          return switch (ownerUid) {
            case "job-1", "pod-2" -> List.of(WORKLOAD);
            case "pt-1" -> List.of(admitted("worker"));
            case "pod-6" ->
                List.of(
                    json(
                        "metadata: {annotations: {berth.dev/device-requests:"
                            + " '{\"main\":{\"nvidia.com/gpu\":2}}'}}"));
            default -> List.of();
          };
        }

        @Override
        public Optional<JsonNode> workload(String namespace, String name) {
          return name.equals("lws-0") ? Optional.of(admitted("worker")) : Optional.empty();
        }

        @Override
        public Optional<JsonNode> template(String namespace, String name) {
          // Made again with 4 GPUs after the Workload was charged 2.
          return name.equals("remade")
              ? Optional.of(
                  json(
                      "spec: {spec: {devices: {requests: [{name: r, exactly: {deviceClassName:"
                          + " gpu.nvidia.com, count: 4}}]}}}"))
              : Optional.empty();
        }

        @Override
        public DeviceClassMappings deviceClasses() {
          return new DeviceClassMappings(
              Map.of("gpu.nvidia.com", "nvidia.com/gpu", "nic.example.com", "example.com/nic"));
        }

        @Override
        public FlavorDeviceSelectors deviceSelectors(String flavor) {
          return flavor.equals("gpus-80gi")
              ? FlavorDeviceSelectors.of(
                  List.of(
                      new FlavorDeviceSelector(null, AT_LEAST_80GI),
                      new FlavorDeviceSelector("gpu.nvidia.com", NOT_A100),
                      new FlavorDeviceSelector("other.example.com", "false")))
              : FlavorDeviceSelectors.NONE;
        }
      };

  private static ObjectNode claim(String owner, String requests) {
    return (ObjectNode)
        json(
            """
            metadata:
              generateName: train-abc-gpus-
              namespace: team-a
              ownerReferences: [%s]
            spec:
              devices:
                requests:
            %s
            """
                .formatted(owner, requests.indent(6)));
  }

  private static final String POD_OWNER =
      "{apiVersion: v1, kind: Pod, name: train-abc, uid: pod-1, controller: true}";

  private static List<String> selectors(JsonNode request) {
    return request.findValues("expression").stream().map(JsonNode::asText).toList();
  }

  @Test
  void eachRequestGetsTheSelectorsOfItsResourcesFlavor() {
    ObjectNode claim =
        claim(
            POD_OWNER,
            """
            - name: gpus
              exactly:
                deviceClassName: gpu.nvidia.com
                count: 2
                selectors: [{cel: {expression: "device.driver == 'gpu.nvidia.com'"}}]
            - name: any-gpu
              firstAvailable:
              - {name: big, deviceClassName: gpu.nvidia.com}
              - {name: nic, deviceClassName: nic.example.com}
            - name: unmapped
              exactly: {deviceClassName: fpga.example.com}
            """);
    new ClaimFlavorSelectors(CLUSTER).apply(claim, "team-a");
    JsonNode requests = claim.at("/spec/devices/requests");
    assertThat(selectors(requests.get(0)))
        .as("the team's selector kept, the flavor's added")
        .containsExactly("device.driver == 'gpu.nvidia.com'", AT_LEAST_80GI, NOT_A100);
    assertThat(selectors(requests.get(1).at("/firstAvailable/0")))
        .containsExactly(AT_LEAST_80GI, NOT_A100);
    assertThat(requests.get(1).at("/firstAvailable/1").has("selectors"))
        .as("example.com/nic was not admitted on a flavor")
        .isFalse();
    assertThat(requests.get(2).at("/exactly").has("selectors")).as("not mapped").isFalse();
  }

  @Test
  void theClaimsOfThePodsOfEveryKindAreNarrowedToTheirPodSetsFlavor() {
    for (String pod : List.of("web-abc", "lws-0-1", "pt-worker-0")) {
      String uid = PODS.get(pod).at("/metadata/uid").asText();
      ObjectNode claim =
          claim(
              "{apiVersion: v1, kind: Pod, name: %s, uid: %s, controller: true}"
                  .formatted(pod, uid),
              "- {name: gpus, exactly: {deviceClassName: gpu.nvidia.com}}");
      new ClaimFlavorSelectors(CLUSTER).apply(claim, "team-a");
      assertThat(selectors(claim.at("/spec/devices/requests/0")))
          .as(pod)
          .containsExactly(AT_LEAST_80GI, NOT_A100);
    }
  }

  @Test
  void aClaimOfAPodStillBehindBerthsGateIsRefusedUntilItIsAdmitted() {
    ObjectNode claim =
        claim(
            "{apiVersion: v1, kind: Pod, name: lws-1-1, uid: pod-5, controller: true}",
            "- {name: gpus, exactly: {deviceClassName: gpu.nvidia.com}}");
    assertThat(new ClaimFlavorSelectors(CLUSTER).refusal(claim, "team-a"))
        .hasValueSatisfying(
            e -> {
              assertThat(e.path()).isEqualTo("metadata.ownerReferences");
              assertThat(e.message())
                  .startsWith("pod lws-1-1 waits behind the berth.dev/admission");
            });
    ObjectNode released =
        claim(
            "{apiVersion: v1, kind: Pod, name: lws-0-1, uid: pod-3, controller: true}",
            "- {name: gpus, exactly: {deviceClassName: gpu.nvidia.com}}");
    assertThat(new ClaimFlavorSelectors(CLUSTER).refusal(released, "team-a"))
        .as("released: its claim is made, narrowed")
        .isEmpty();
  }

  @Test
  void aClaimFromATemplateMadeAgainBiggerThanTheChargeIsRefused() {
    ObjectNode claim =
        claim(
            "{apiVersion: v1, kind: Pod, name: web-big, uid: pod-6, controller: true}",
            "- {name: r, exactly: {deviceClassName: gpu.nvidia.com, count: 4}}");
    assertThat(new ClaimFlavorSelectors(CLUSTER).refusal(claim, "team-a"))
        .hasValueSatisfying(
            e -> {
              assertThat(e.path()).isEqualTo("spec.devices");
              assertThat(e.message())
                  .startsWith(
                      "the pod's claims hold 4 nvidia.com/gpu and its Workload was charged 2 a"
                          + " pod")
                  .endsWith("(the claims of pod web-big)");
            });
  }

  @Test
  void aClaimAlreadyCarryingTheSelectorsIsLeftAlone() {
    ObjectNode claim =
        claim(
            POD_OWNER,
            """
            - name: gpus
              exactly:
                deviceClassName: gpu.nvidia.com
                selectors: [{cel: {expression: "%s"}}, {cel: {expression: "%s"}}]
            """
                .formatted(AT_LEAST_80GI, NOT_A100));
    ObjectNode before = claim.deepCopy();
    new ClaimFlavorSelectors(CLUSTER).apply(claim, "team-a");
    assertThat(claim).isEqualTo(before);
  }

  @Test
  void claimsOfNoAdmittedPodAreLeftAsWritten() {
    String gpus = "- {name: gpus, exactly: {deviceClassName: gpu.nvidia.com}}";
    for (String owner :
        List.of(
            // A pod of that name, but another one (a different UID).
            "{apiVersion: v1, kind: Pod, name: train-abc, uid: other, controller: true}",
            "{apiVersion: v1, kind: Pod, name: gone, uid: pod-9, controller: true}",
            "{apiVersion: apps/v1, kind: ReplicaSet, name: train-abc, uid: pod-1, controller: true}")) {
      ObjectNode claim = claim(owner, gpus);
      ObjectNode before = claim.deepCopy();
      new ClaimFlavorSelectors(CLUSTER).apply(claim, "team-a");
      assertThat(claim).as(owner).isEqualTo(before);
    }
  }
}
