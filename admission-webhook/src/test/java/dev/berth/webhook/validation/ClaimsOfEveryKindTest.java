package dev.berth.webhook.validation;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.berth.webhook.integration.Framework;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The pod queue rule holds the claims of the pods of every kind Berth queues, not only a Job's, to
 * what their Workload's pod set was charged ({@link PodWorkload} finds it): a RayCluster's, a
 * PyTorchJob's, a TrainJob's (through its JobSet), and a pod joining an admitted pod group (a
 * StatefulSet's, a LeaderWorkerSet's).
 */
class ClaimsOfEveryKindTest {
  private static final String OPERATOR = "system:serviceaccount:berth-system:berth";
  private static final String TWO_GPUS = "[{name: gpus, resourceClaimTemplateName: two-gpus}]";
  private static final String FOUR_GPUS =
      "[{name: gpus, resourceClaimTemplateName: two-gpus},"
          + " {name: more, resourceClaimTemplateName: two-gpus}]";

  private static final String CLUSTER =
      """
      apiVersion: ray.io/v1
      kind: RayCluster
      metadata: {name: ray, namespace: team-a, uid: ray-uid, labels: {berth.dev/queue-name: a}}
      spec:
        headGroupSpec:
          template:
            spec:
              resourceClaims: %s
              containers: [{name: head, image: ray}]
      """
          .formatted(TWO_GPUS);

  private static final String PYTORCH =
      """
      apiVersion: kubeflow.org/v1
      kind: PyTorchJob
      metadata: {name: pt, namespace: team-a, uid: pt-uid, labels: {berth.dev/queue-name: a}}
      spec:
        runPolicy: {suspend: false}
        pytorchReplicaSpecs:
          Worker:
            replicas: 2
            template:
              spec:
                resourceClaims: %s
                containers: [{name: pytorch, image: trainer}]
      """
          .formatted(TWO_GPUS);

  /** A JobSet child Job of the JobSet Kubeflow Trainer made for TrainJob tj. */
  private static final String CHILD_JOB =
      """
      apiVersion: batch/v1
      kind: Job
      metadata:
        name: tj-node-0
        namespace: team-a
        uid: child-uid
        labels: {jobset.sigs.k8s.io/replicatedjob-name: node}
        ownerReferences:
        - {apiVersion: jobset.x-k8s.io/v1alpha2, kind: JobSet, name: tj, uid: js-uid, controller: true}
      spec:
        suspend: false
        selector: {matchLabels: {batch.kubernetes.io/controller-uid: child-uid}}
        template:
          spec:
            resourceClaims: %s
            containers: [{name: node, image: trainer}]
      """
          .formatted(TWO_GPUS);

  private static final String JOB_SET =
      """
      metadata:
        name: tj
        namespace: team-a
        uid: js-uid
        ownerReferences:
        - {apiVersion: trainer.kubeflow.org/v1alpha1, kind: TrainJob, name: tj, uid: tj-uid, controller: true}
      """;

  /** Each Workload charged 2 GPUs a pod in its pod set, by owner UID (a group's: by name). */
  private static final Map<String, String> CHARGED =
      Map.of("ray-uid", "head", "pt-uid", "worker", "tj-uid", "node", "web", "main");

  /** ClaimResourcesTest's cluster, with these owners and their Workloads. */
  static class Kinds extends ClaimResourcesTest.WithClaims {
    @Override
    public Optional<JsonNode> rayObject(String kind, String namespace, String name) {
      return kind.equals("RayCluster") && name.equals("ray")
          ? Optional.of(TestObjects.json(CLUSTER))
          : Optional.empty();
    }

    @Override
    public Optional<JsonNode> owner(Framework framework, String namespace, String name) {
      return framework == Framework.PYTORCHJOB && name.equals("pt")
          ? Optional.of(TestObjects.json(PYTORCH))
          : Optional.empty();
    }

    @Override
    public Optional<JsonNode> job(String namespace, String name) {
      return name.equals("tj-node-0")
          ? Optional.of(TestObjects.json(CHILD_JOB))
          : super.job(namespace, name);
    }

    @Override
    public Optional<JsonNode> jobSet(String namespace, String name) {
      return name.equals("tj") ? Optional.of(TestObjects.json(JOB_SET)) : Optional.empty();
    }

    @Override
    public List<JsonNode> workloadsOwnedBy(String namespace, String ownerUid) {
      return CHARGED.containsKey(ownerUid)
          ? List.of(charged(CHARGED.get(ownerUid)))
          : super.workloadsOwnedBy(namespace, ownerUid);
    }

    @Override
    public Optional<JsonNode> workload(String namespace, String name) {
      return Optional.ofNullable(CHARGED.get(name)).map(ClaimsOfEveryKindTest::charged);
    }
  }

  private static JsonNode charged(String podSet) {
    return ClaimResourcesTest.yaml(
        "{metadata: {annotations: {berth.dev/device-requests: '{\"%s\":{\"example.com/gpu\":2}}'}}}"
            .formatted(podSet));
  }

  private static List<FieldError> create(QueueScope scope, String pod, String claims) {
    ObjectNode json = (ObjectNode) TestObjects.json(pod);
    json.with("spec").set("resourceClaims", ClaimResourcesTest.yaml(claims));
    json.with("spec").withArray("containers").addObject().put("name", "c").put("image", "x");
    return new PodQueueRule(new RequestGuard(OPERATOR), scope).onCreate("team-a", json, "dana");
  }

  private static final String RAY_HEAD =
      """
      metadata:
        name: ray-head
        labels: {ray.io/cluster: ray, ray.io/node-type: head}
        ownerReferences: [{apiVersion: ray.io/v1, kind: RayCluster, name: ray, uid: ray-uid, controller: true}]
      """;

  private static final String PYTORCH_WORKER =
      """
      metadata:
        name: pt-worker-0
        labels: {training.kubeflow.org/replica-type: worker}
        ownerReferences: [{apiVersion: kubeflow.org/v1, kind: PyTorchJob, name: pt, uid: pt-uid, controller: true}]
      """;

  private static final String TRAINJOB_POD =
      """
      metadata:
        name: tj-node-0-0
        labels: {batch.kubernetes.io/controller-uid: child-uid}
        ownerReferences: [{apiVersion: batch/v1, kind: Job, name: tj-node-0, uid: child-uid, controller: true}]
      """;

  @Test
  void aPodOfAnyKindMayHoldWhatItsPodSetWasCharged() {
    for (String pod : List.of(RAY_HEAD, PYTORCH_WORKER, TRAINJOB_POD)) {
      assertThat(create(new Kinds(), pod, TWO_GPUS)).as(pod).isEmpty();
    }
  }

  @Test
  void aClaimTemplateMadeAgainBiggerIsRefusedForEveryKind() {
    QueueScope remade =
        new Kinds() {
          @Override
          public Optional<JsonNode> template(String namespace, String name) {
            return Optional.of(ClaimResourcesTest.EIGHT_GPUS);
          }
        };
    for (String pod : List.of(RAY_HEAD, PYTORCH_WORKER, TRAINJOB_POD)) {
      assertThat(create(remade, pod, TWO_GPUS))
          .as(pod)
          .singleElement()
          .satisfies(
              e -> {
                assertThat(e.path()).isEqualTo("metadata.ownerReferences[0]");
                assertThat(e.message())
                    .startsWith(
                        "the pod's claims hold 8 example.com/gpu and its Workload was charged 2 a"
                            + " pod");
              });
    }
  }

  @Test
  void aPodOfAnOwnerWithoutAWorkloadGetsNoDevices() {
    QueueScope none =
        new Kinds() {
          @Override
          public List<JsonNode> workloadsOwnedBy(String namespace, String ownerUid) {
            return List.of();
          }
        };
    assertThat(create(none, RAY_HEAD, TWO_GPUS))
        .singleElement()
        .satisfies(
            e ->
                assertThat(e.message())
                    .startsWith(
                        "RayCluster ray has no Workload, so the devices of the pod's claims are"
                            + " charged to no queue"));
    assertThat(create(none, PYTORCH_WORKER, TWO_GPUS))
        .singleElement()
        .satisfies(e -> assertThat(e.message()).startsWith("PyTorchJob pt has no Workload"));
    assertThat(create(none, TRAINJOB_POD, TWO_GPUS))
        .singleElement()
        .satisfies(e -> assertThat(e.message()).startsWith("TrainJob tj has no Workload"));
  }

  /** A queued pod of group {@code group}, behind Berth's gate (a StatefulSet's pod). */
  private static String groupPod(String group) {
    return """
        metadata:
          name: web-3
          uid: web-3-uid
          labels: {berth.dev/queue-name: a, berth.dev/managed: "true", berth.dev/pod-group-name: %s}
          annotations: {berth.dev/pod-group-total-count: "2"}
          ownerReferences: [{apiVersion: apps/v1, kind: StatefulSet, name: web, uid: sts, controller: true}]
        spec:
          schedulingGates: [{name: berth.dev/admission}]
        """
        .formatted(group);
  }

  @Test
  void aPodJoiningAnAdmittedGroupWithMoreClaimsIsRefusedAtItsClaims() {
    assertThat(create(new Kinds(), groupPod("web"), TWO_GPUS)).isEmpty();
    assertThat(create(new Kinds(), groupPod("web"), FOUR_GPUS))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.path()).isEqualTo("spec.resourceClaims");
              assertThat(e.message())
                  .startsWith(
                      "the pod's claims hold 4 example.com/gpu and its Workload was charged 2 a"
                          + " pod")
                  .contains("the pod joins pod group web");
            });
    assertThat(create(new Kinds(), groupPod("forming"), FOUR_GPUS))
        .as("a group whose Workload is not made yet is charged from its pods when it is")
        .isEmpty();
  }
}
