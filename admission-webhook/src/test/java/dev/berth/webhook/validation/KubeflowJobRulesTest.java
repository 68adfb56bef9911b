package dev.berth.webhook.validation;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.berth.webhook.integration.Framework;
import dev.berth.webhook.mutation.KubeflowJobDefaulter;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The training operator's v1 jobs (PyTorchJob, MPIJob) under the queue rule: their object rules,
 * their suspension in {@code spec.runPolicy}, their resize rule, their defaulting, and the pods
 * their controller makes.
 */
class KubeflowJobRulesTest {
  private static final String OPERATOR = "system:serviceaccount:berth-system:berth";
  private static final String ALICE = "alice";
  private static final String QUEUE = "metadata.labels[berth.dev/queue-name]";

  /** "ns" is selected by a ClusterQueue and has LocalQueues a and b; "free" is not managed. */
  private static final QueueScopeStandIn SCOPE =
      new QueueScopeStandIn(
          Set.of("ns/a", "ns/b"), Map.of("ns", "ClusterQueue team selects it"), Map.of());

  private static final ManagedJobPolicy POLICY =
      new ManagedJobPolicy(new RequestGuard(OPERATOR), SCOPE);

  private static final String PYTORCHJOB =
      """
      apiVersion: kubeflow.org/v1
      kind: PyTorchJob
      metadata: {name: ddp, namespace: ns, uid: ddp-uid, labels: {berth.dev/queue-name: a}}
      spec:
        runPolicy: {suspend: true, cleanPodPolicy: Running}
        pytorchReplicaSpecs:
          Master:
            replicas: 1
            template:
              spec:
                containers:
                - {name: pytorch, image: trainer:1, resources: {requests: {nvidia.com/gpu: "8"}}}
          Worker:
            replicas: 2
            template:
              spec:
                containers:
                - {name: pytorch, image: trainer:1, resources: {requests: {nvidia.com/gpu: "8"}}}
      """;

  private static final String MPIJOB =
      """
      apiVersion: kubeflow.org/v1
      kind: MPIJob
      metadata: {name: pi, namespace: ns, labels: {berth.dev/queue-name: a}}
      spec:
        mpiReplicaSpecs:
          Launcher:
            template: {spec: {containers: [{name: mpi, image: mpi:1}]}}
          Worker:
            replicas: 2
            template: {spec: {containers: [{name: mpi, image: mpi:1}]}}
      """;

  private static final KubeflowJobValidator PYTORCH =
      new KubeflowJobValidator(Framework.PYTORCHJOB);
  private static final KubeflowJobValidator MPI = new KubeflowJobValidator(Framework.MPIJOB);

  private static JsonNode json(String yaml) {
    return TestObjects.json(yaml);
  }

  private static List<String> paths(List<FieldError> errors) {
    return errors.stream().map(FieldError::path).toList();
  }

  @Test
  void aManagedJobNamesOnlyItsKindsReplicaTypesEachWithATemplate() {
    assertThat(PYTORCH.validate(json(PYTORCHJOB))).isEmpty();
    assertThat(MPI.validate(json(MPIJOB))).isEmpty();
    assertThat(
            paths(
                PYTORCH.validate(
                    json(
                        PYTORCHJOB
                            .replace("    Worker:", "    Chief:")
                            .replace("replicas: 2", "replicas: -1")))))
        .containsExactly("spec.pytorchReplicaSpecs[Chief]");
    assertThat(
            paths(
                MPI.validate(
                    json(
                        MPIJOB
                            .replace("replicas: 2", "replicas: -1")
                            .replace(
                                "    Launcher:\n      template: {spec: {containers: [{name: mpi, image: mpi:1}]}}",
                                "    Launcher: {}")))))
        .containsExactlyInAnyOrder(
            "spec.mpiReplicaSpecs[Launcher].template", "spec.mpiReplicaSpecs[Worker].replicas");
    assertThat(
            paths(PYTORCH.validate(json(PYTORCHJOB.replace("  pytorchReplicaSpecs:", "  other:")))))
        .containsExactly("spec.pytorchReplicaSpecs");
    // Not Berth's (no queue label): none of Berth's business.
    assertThat(
            PYTORCH.validate(
                json(
                    PYTORCHJOB
                        .replace("labels: {berth.dev/queue-name: a}", "labels: {}")
                        .replace("    Worker:", "    Chief:"))))
        .isEmpty();
  }

  @Test
  void podsLeftRunningWhenTheJobEndsAreRefusedAndRunningIsTheDefault() {
    List<FieldError> errors =
        PYTORCH.validate(
            json(PYTORCHJOB.replace("cleanPodPolicy: Running", "cleanPodPolicy: None")));
    assertThat(paths(errors)).containsExactly("spec.runPolicy.cleanPodPolicy");
    assertThat(errors.get(0).message()).contains("Running").contains("All");

    ObjectNode created = (ObjectNode) json(MPIJOB);
    new KubeflowJobDefaulter((ns, name) -> false, Framework.MPIJOB).apply(created, "ns");
    assertThat(created.at("/spec/runPolicy/suspend").asBoolean()).isTrue();
    assertThat(created.at("/spec/runPolicy/cleanPodPolicy").asText()).isEqualTo("Running");
    assertThat(created.at("/spec/suspend").isMissingNode()).isTrue();
    assertThat(created.at("/metadata/annotations/berth.dev~1submitted-at").isTextual()).isTrue();
    // Chosen by the user: kept (and refused if None).
    ObjectNode all =
        (ObjectNode) json(PYTORCHJOB.replace("cleanPodPolicy: Running", "cleanPodPolicy: All"));
    new KubeflowJobDefaulter((ns, name) -> false, Framework.PYTORCHJOB).apply(all, "ns");
    assertThat(all.at("/spec/runPolicy/cleanPodPolicy").asText()).isEqualTo("All");
    // Unlabelled in a namespace with a default LocalQueue: queued there, suspended.
    ObjectNode unlabelled =
        (ObjectNode) json(MPIJOB.replace("labels: {berth.dev/queue-name: a}", "labels: {}"));
    new KubeflowJobDefaulter((ns, name) -> name.equals("default"), Framework.MPIJOB)
        .apply(unlabelled, "ns");
    assertThat(unlabelled.at("/metadata/labels/berth.dev~1queue-name").asText())
        .isEqualTo("default");
    assertThat(unlabelled.at("/spec/runPolicy/suspend").asBoolean()).isTrue();
  }

  @Test
  void inAManagedNamespaceAnUnlabelledJobIsRefusedNamingTheLabelAndTheQueues() {
    JsonNode unlabelled = json(MPIJOB.replace("labels: {berth.dev/queue-name: a}", "labels: {}"));
    List<FieldError> errors = POLICY.onCreate("MPIJob", "ns", unlabelled, ALICE);
    assertThat(paths(errors)).contains(QUEUE);
    assertThat(errors.get(0).message()).contains("MPIJob").contains("a, b");
    assertThat(POLICY.onCreate("MPIJob", "free", unlabelled, ALICE)).isEmpty();
  }

  @Test
  void onlyTheOperatorUnsuspendsThroughTheRunPolicy() {
    JsonNode suspended = json(PYTORCHJOB);
    JsonNode running = json(PYTORCHJOB.replace("suspend: true", "suspend: false"));
    assertThat(paths(POLICY.onUpdate("PyTorchJob", "ns", suspended, running, ALICE)))
        .containsExactly("spec.runPolicy.suspend");
    assertThat(POLICY.onUpdate("PyTorchJob", "ns", suspended, running, OPERATOR)).isEmpty();
    // Created running: the same (the defaulter suspends it first; this is what it checks after).
    assertThat(paths(POLICY.onCreate("PyTorchJob", "ns", running, ALICE)))
        .containsExactly("spec.runPolicy.suspend");
    // spec.suspend means nothing to the training operator: it is not a start.
    JsonNode otherField =
        json(PYTORCHJOB.replace("  runPolicy:", "  suspend: false\n  runPolicy:"));
    assertThat(POLICY.onUpdate("PyTorchJob", "ns", suspended, otherField, ALICE)).isEmpty();
  }

  @Test
  void theQueueLabelStaysWhileSuspendedAndMovesOnlyToAnExistingQueue() {
    JsonNode job = json(PYTORCHJOB);
    assertThat(
            paths(
                POLICY.onUpdate(
                    "PyTorchJob",
                    "ns",
                    job,
                    json(PYTORCHJOB.replace("labels: {berth.dev/queue-name: a}", "labels: {}")),
                    ALICE)))
        .contains(QUEUE);
    assertThat(
            POLICY.onUpdate(
                "PyTorchJob",
                "ns",
                job,
                json(PYTORCHJOB.replace("queue-name: a}", "queue-name: b}")),
                ALICE))
        .isEmpty();
    assertThat(
            paths(
                POLICY.onUpdate(
                    "PyTorchJob",
                    "ns",
                    job,
                    json(PYTORCHJOB.replace("queue-name: a}", "queue-name: nope}")),
                    ALICE)))
        .containsExactly(QUEUE);
    // Running: the label is fixed (the object rule).
    String running = PYTORCHJOB.replace("suspend: true", "suspend: false");
    assertThat(
            paths(
                PYTORCH.validateUpdate(
                    json(running), json(running.replace("queue-name: a}", "queue-name: b}")))))
        .containsExactly(QUEUE);
  }

  @Test
  void aRunningJobKeepsItsReplicasAndTemplatesButTheOperatorMayChangeThem() {
    String running = PYTORCHJOB.replace("suspend: true", "suspend: false");
    JsonNode old = json(running);
    assertThat(
            POLICY.onUpdate(
                "PyTorchJob",
                "ns",
                old,
                json(running.replace("replicas: 2", "replicas: 4")),
                ALICE))
        .extracting(FieldError::path, FieldError::message)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                "spec.pytorchReplicaSpecs[Worker].replicas",
                "cannot change from 2 to 4: the PyTorchJob runs under the Workload admitted for its"
                    + " old size; delete it and create it again to change its pods"));
    assertThat(
            paths(
                POLICY.onUpdate(
                    "PyTorchJob",
                    "ns",
                    old,
                    json(running.replaceFirst("nvidia.com/gpu: \"8\"", "nvidia.com/gpu: \"16\"")),
                    ALICE)))
        .containsExactly(
            "spec.pytorchReplicaSpecs[Master].template.spec.containers[0].resources.requests[nvidia.com/gpu]");
    assertThat(
            paths(
                POLICY.onUpdate(
                    "PyTorchJob",
                    "ns",
                    old,
                    json(
                        running.replace(
                            "    Worker:\n      replicas: 2", "    Worker2:\n      replicas: 2")),
                    ALICE)))
        .containsExactlyInAnyOrder(
            "spec.pytorchReplicaSpecs[Worker]", "spec.pytorchReplicaSpecs[Worker2]");
    assertThat(
            POLICY.onUpdate(
                "PyTorchJob",
                "ns",
                old,
                json(running.replace("replicas: 2", "replicas: 4")),
                OPERATOR))
        .isEmpty();
    // Suspended, it may be resized: its Workload is made again at the new size.
    assertThat(
            POLICY.onUpdate(
                "PyTorchJob",
                "ns",
                json(PYTORCHJOB),
                json(PYTORCHJOB.replace("replicas: 2", "replicas: 4")),
                ALICE))
        .isEmpty();
  }

  /** A pod of PyTorchJob ddp (uid ddp-uid) of {@code type}, asking {@code gpus} GPUs. */
  private static JsonNode pod(String type, int gpus, String uid) {
    return json(
        """
        apiVersion: v1
        kind: Pod
        metadata:
          name: ddp-%s-0
          namespace: ns
          labels: {training.kubeflow.org/replica-type: %s, training.kubeflow.org/job-name: ddp}
          ownerReferences:
          - {apiVersion: kubeflow.org/v1, kind: PyTorchJob, name: ddp, uid: %s, controller: true}
        spec:
          containers:
          - {name: pytorch, image: trainer:1, resources: {requests: {nvidia.com/gpu: "%d"}}}
        """
            .formatted(type, type, uid, gpus));
  }

  private static PodQueueRule podRule(String jobYaml) {
    QueueScope scope =
        new QueueScope() {
          @Override
          public boolean exists(String namespace, String name) {
            return SCOPE.exists(namespace, name);
          }

          @Override
          public Optional<String> managedBecause(String namespace) {
            return SCOPE.managedBecause(namespace);
          }

          @Override
          public Optional<JsonNode> jobSet(String namespace, String name) {
            return Optional.empty();
          }

          @Override
          public Set<String> coveredResources(String namespace) {
            return Set.of("nvidia.com/gpu");
          }

          @Override
          public Optional<JsonNode> owner(Framework framework, String namespace, String name) {
            return framework == Framework.PYTORCHJOB && name.equals("ddp") && jobYaml != null
                ? Optional.of(json(jobYaml))
                : Optional.empty();
          }
        };
    return new PodQueueRule(new RequestGuard(OPERATOR), scope);
  }

  @Test
  void aPodOfARunningManagedJobWithinItsReplicasTemplateIsItsOwn() {
    String running = PYTORCHJOB.replace("suspend: true", "suspend: false");
    assertThat(podRule(running).onCreate("ns", pod("worker", 8, "ddp-uid"), ALICE)).isEmpty();
    assertThat(podRule(running).onCreate("ns", pod("master", 8, "ddp-uid"), ALICE)).isEmpty();

    List<FieldError> more = podRule(running).onCreate("ns", pod("worker", 16, "ddp-uid"), ALICE);
    assertThat(paths(more)).containsExactly("metadata.ownerReferences[0]");
    assertThat(more.get(0).message())
        .contains("asks for 16 nvidia.com/gpu")
        .contains("PyTorchJob ddp")
        .contains("worker replica's template");
    assertThat(podRule(running).onCreate("ns", pod("chief", 8, "ddp-uid"), ALICE).get(0).message())
        .contains("names no replica type of PyTorchJob ddp");
    assertThat(
            podRule(running).onCreate("ns", pod("worker", 8, "other-uid"), ALICE).get(0).message())
        .contains("does not exist");
    assertThat(
            podRule(PYTORCHJOB).onCreate("ns", pod("worker", 8, "ddp-uid"), ALICE).get(0).message())
        .contains("is suspended");
    assertThat(
            podRule(running.replace("labels: {berth.dev/queue-name: a}", "labels: {}"))
                .onCreate("ns", pod("worker", 8, "ddp-uid"), ALICE)
                .get(0)
                .message())
        .contains("is not queued by Berth");
    assertThat(podRule(null).onCreate("ns", pod("worker", 8, "ddp-uid"), ALICE)).hasSize(1);
  }

  @Test
  void theRegistryKnowsWhereEachKindIsSuspended() {
    assertThat(Framework.PYTORCHJOB.suspendPointer()).isEqualTo("/spec/runPolicy/suspend");
    assertThat(Framework.MPIJOB.suspendPointer()).isEqualTo("/spec/runPolicy/suspend");
    assertThat(Framework.JOBSET.suspendPointer()).isEqualTo("/spec/suspend");
    assertThat(Framework.defaultFrameworkNames())
        .doesNotContain("kubeflow.org/pytorchjob", "kubeflow.org/mpijob");
    assertThat(KubeflowJobValidator.templateOf(Framework.MPIJOB, json(MPIJOB), "launcher"))
        .isPresent();
  }
}
