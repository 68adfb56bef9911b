package dev.berth.webhook.validation;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.berth.webhook.integration.Framework;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Kubeflow Trainer's TrainJob under Berth's rules: its resize rule while running (PodSetChanges)
 * and the JobSet the Trainer makes for it (TrainJobChildren, through ManagedJobPolicy), which is
 * not queued again but must be what the TrainJob's Workload was admitted for.
 */
class TrainJobRulesTest {
  private static final String OPERATOR = "system:serviceaccount:berth-system:berth";
  private static final String TRAINER = "system:serviceaccount:kubeflow-system:kubeflow-trainer";

  static final String TRAINJOB =
      """
      apiVersion: trainer.kubeflow.org/v1alpha1
      kind: TrainJob
      metadata: {name: tj, namespace: ns, uid: tj-uid, labels: {berth.dev/queue-name: team-a}}
      spec:
        suspend: false
        runtimeRef: {name: torch}
        trainer:
          numNodes: 2
          resourcesPerNode: {limits: {nvidia.com/gpu: "8"}}
      """;

  /** Its Workload, admitted: one podSet "node" of 2 pods of 8 GPUs. */
  static final String WORKLOAD =
      """
      apiVersion: berth.dev/v1beta1
      kind: Workload
      metadata: {name: trainjob-tj-abcde, namespace: ns}
      spec:
        queueName: team-a
        podSets:
        - name: node
          count: 2
          template:
            spec:
              containers:
              - {name: node, image: torch, resources: {limits: {nvidia.com/gpu: "8"}}}
      """;

  /** The JobSet the Trainer makes of it, running. */
  static final String JOBSET =
      """
      apiVersion: jobset.x-k8s.io/v1alpha2
      kind: JobSet
      metadata:
        name: tj
        namespace: ns
        ownerReferences:
        - {apiVersion: trainer.kubeflow.org/v1alpha1, kind: TrainJob, name: tj, uid: tj-uid,
           controller: true}
      spec:
        suspend: false
        replicatedJobs:
        - name: node
          replicas: 1
          template:
            spec:
              parallelism: 2
              completions: 2
              template:
                spec:
                  containers:
                  - {name: node, image: torch, resources: {limits: {nvidia.com/gpu: "8"}}}
      """;

  private static QueueScope scope(String trainJob) {
    return new QueueScope() {
      @Override
      public boolean exists(String namespace, String name) {
        return "team-a".equals(name);
      }

      @Override
      public Optional<String> managedBecause(String namespace) {
        return Optional.of("ClusterQueue team-a selects it");
      }

      @Override
      public Optional<JsonNode> jobSet(String namespace, String name) {
        return Optional.empty();
      }

      @Override
      public Optional<JsonNode> owner(Framework framework, String namespace, String name) {
        return framework == Framework.TRAINJOB && "tj".equals(name) && trainJob != null
            ? Optional.of(TestObjects.json(trainJob))
            : Optional.empty();
      }

      @Override
      public List<JsonNode> workloadsOwnedBy(String namespace, String ownerUid) {
        return "tj-uid".equals(ownerUid) ? List.of(TestObjects.json(WORKLOAD)) : List.of();
      }
    };
  }

  private static ManagedJobPolicy policy(String trainJob) {
    return new ManagedJobPolicy(new RequestGuard(OPERATOR), scope(trainJob));
  }

  private static List<String> paths(List<FieldError> errors) {
    return errors.stream().map(FieldError::path).toList();
  }

  @Test
  void aRunningTrainJobCannotChangeWhatItsPodSetsComeFromButTheOperatorStartsAndStopsIt() {
    String grown = TRAINJOB.replace("numNodes: 2", "numNodes: 4");
    assertThat(
            paths(
                policy(TRAINJOB)
                    .onUpdate(
                        "TrainJob",
                        "ns",
                        TestObjects.json(TRAINJOB),
                        TestObjects.json(grown),
                        "alice")))
        .containsExactly("spec.trainer.numNodes");
    String overridden =
        TRAINJOB.replace(
            "  suspend: false",
            "  suspend: false\n  podSpecOverrides: [{targetJobs: [{name: node}]}]");
    assertThat(
            paths(
                policy(TRAINJOB)
                    .onUpdate(
                        "TrainJob",
                        "ns",
                        TestObjects.json(TRAINJOB),
                        TestObjects.json(overridden),
                        "alice")))
        .containsExactly("spec.podSpecOverrides");
    assertThat(
            policy(TRAINJOB)
                .onUpdate(
                    "TrainJob",
                    "ns",
                    TestObjects.json(TRAINJOB),
                    TestObjects.json(grown),
                    OPERATOR))
        .isEmpty();
    String suspended = TRAINJOB.replace("suspend: false", "suspend: true");
    assertThat(
            paths(
                policy(TRAINJOB)
                    .onUpdate(
                        "TrainJob",
                        "ns",
                        TestObjects.json(suspended),
                        TestObjects.json(TRAINJOB),
                        "alice")))
        .containsExactly("spec.suspend");
  }

  @Test
  void theJobSetOfAnAdmittedTrainJobIsNotQueuedAgainButMustBeWhatItWasAdmittedFor() {
    assertThat(JobView.of(TestObjects.json(JOBSET)).childOfJobSet()).isTrue();
    assertThat(policy(TRAINJOB).onCreate("JobSet", "ns", TestObjects.json(JOBSET), TRAINER))
        .isEmpty();
    // More pods than admitted, a container asking more, or another name: refused.
    String bigger =
        JOBSET
            .replace("parallelism: 2", "parallelism: 3")
            .replace("completions: 2", "completions: 3")
            .replace("gpu: \"8\"", "gpu: \"16\"");
    assertThat(paths(policy(TRAINJOB).onCreate("JobSet", "ns", TestObjects.json(bigger), TRAINER)))
        .containsExactly(
            "spec.replicatedJobs[0].replicas",
            "spec.replicatedJobs[0].template.spec.template.spec.containers[0].resources");
    String renamed = JOBSET.replace("name: tj\n  namespace", "name: other\n  namespace");
    assertThat(paths(policy(TRAINJOB).onCreate("JobSet", "ns", TestObjects.json(renamed), TRAINER)))
        .containsExactly("metadata.name");
  }

  @Test
  void theJobSetOfASuspendedOrMissingTrainJobDoesNotRunButMayBeMadeSuspended() {
    String suspendedJob = TRAINJOB.replace("suspend: false", "suspend: true");
    assertThat(policy(suspendedJob).onCreate("JobSet", "ns", TestObjects.json(JOBSET), TRAINER))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.path()).isEqualTo("metadata.ownerReferences");
              assertThat(e.message()).contains("suspended");
            });
    assertThat(
            policy(suspendedJob)
                .onCreate(
                    "JobSet",
                    "ns",
                    TestObjects.json(JOBSET.replace("suspend: false", "suspend: true")),
                    TRAINER))
        .isEmpty();
    assertThat(paths(policy(null).onCreate("JobSet", "ns", TestObjects.json(JOBSET), "mallory")))
        .containsExactly("metadata.ownerReferences");
    // The operator's own writes are its own.
    assertThat(policy(null).onCreate("JobSet", "ns", TestObjects.json(JOBSET), OPERATOR)).isEmpty();
  }
}
