package dev.berth.operator.integration.trainjob;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.api.v1beta1.PodSet;
import dev.berth.operator.integration.AdmittedWorkloads;
import dev.berth.operator.integration.FixedFlavors;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TrainJobAdapterTest {
  /** torch-distributed's shape, with a dataset initializer and an extra replicatedJob of 2 Jobs. */
  private static final String TORCH =
      """
      mlPolicy: {numNodes: 3, torch: {numProcPerNode: auto}}
      template:
        spec:
          replicatedJobs:
          - name: dataset-initializer
            replicas: 4
            template:
              metadata: {labels: {trainer.kubeflow.org/trainjob-ancestor-step: dataset-initializer}}
              spec:
                template:
                  spec:
                    containers:
                    - {name: dataset-initializer, image: init:1, resources: {requests: {cpu: "2"}}}
          - name: node
            template:
              metadata: {labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}}
              spec:
                parallelism: 7
                template:
                  spec:
                    nodeSelector: {pool: train}
                    tolerations: [{key: old, operator: Exists}]
                    containers:
                    - {name: node, image: torch:1, resources: {requests: {cpu: "4", nvidia.com/gpu: "1"}}}
          - name: sidecar-jobs
            replicas: 2
            template:
              spec:
                parallelism: 3
                template:
                  spec:
                    containers:
                    - {name: side, image: side:1, resources: {requests: {cpu: "1"}}}
      """;

  private static final String MPI =
      """
      mlPolicy: {numNodes: 1, mpi: {runLauncherAsNode: true}}
      template:
        spec:
          replicatedJobs:
          - name: launcher
            template:
              metadata: {labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}}
              spec:
                template:
                  spec:
                    containers: [{name: node, image: mpi:1}]
          - name: node
            template:
              spec:
                parallelism: 1
                template:
                  spec:
                    containers: [{name: node, image: mpi:1, resources: {requests: {nvidia.com/gpu: "8"}}}]
      """;

  private static RuntimeSpec runtime(String yaml) {
    return Serialization.unmarshal(yaml, RuntimeSpec.class);
  }

  private static TrainJob trainJob(String spec) {
    return Serialization.unmarshal(
        """
        apiVersion: trainer.kubeflow.org/v1alpha1
        kind: TrainJob
        metadata: {name: tj, namespace: ns, uid: tj-uid, labels: {berth.dev/queue-name: lq}}
        spec:
          runtimeRef: {name: rt}
        %s"""
            .formatted(spec.indent(2)),
        TrainJob.class);
  }

  private static TrainJobAdapter adapter(String runtime) {
    return new TrainJobAdapter(job -> Optional.of(runtime(runtime)), job -> List.of());
  }

  @Test
  void itsPodSetsAreItsRuntimesReplicatedJobsWithTheTrainJobsNodeCountAndResources() {
    TrainJob job =
        trainJob(
            """
            trainer:
              numNodes: 2
              resourcesPerNode: {limits: {nvidia.com/gpu: "8"}}
            """);
    List<PodSet> podSets = adapter(TORCH).podSets(job);
    // The initializer runs one Job whatever its replicas; the trainer numNodes pods (not the
    // template's parallelism, nor the policy's 3); any other replicatedJob replicas x parallelism.
    assertThat(podSets)
        .extracting(ps -> ps.name + "=" + ps.count)
        .containsExactly("dataset-initializer=1", "node=2", "sidecar-jobs=6");
    // resourcesPerNode replaces the node container's resources whole: a limit, no request.
    var resources = podSets.get(1).template.getSpec().getContainers().get(0).getResources();
    assertThat(resources.getLimits())
        .containsExactly(Map.entry("nvidia.com/gpu", new Quantity("8")));
    assertThat(resources.getRequests()).isNullOrEmpty();
  }

  @Test
  void withoutOverridesTheTrainerRunsTheMlPolicysNodesAndUnderMpiNumNodesCountsTheLauncher() {
    assertThat(adapter(TORCH).podSets(trainJob("suspend: true\n")))
        .extracting(ps -> ps.name + "=" + ps.count)
        .containsExactly("dataset-initializer=1", "node=3", "sidecar-jobs=6");
    assertThat(adapter(MPI).podSets(trainJob("trainer: {numNodes: 4}\n")))
        .extracting(ps -> ps.name + "=" + ps.count)
        .containsExactly("launcher=1", "node=3");
  }

  @Test
  void podSpecOverridesAreMergedIntoTheTemplatesTheyTarget() {
    TrainJob job =
        trainJob(
            """
            podSpecOverrides:
            - targetJobs: [{name: node}]
              nodeSelector: {zone: a}
              tolerations: [{key: new, operator: Exists}]
            """);
    var spec = adapter(TORCH).podSets(job).get(1).template.getSpec();
    assertThat(spec.getNodeSelector()).containsEntry("pool", "train").containsEntry("zone", "a");
    // A strategic merge replaces a list without a merge key.
    assertThat(spec.getTolerations()).extracting(Toleration::getKey).containsExactly("new");
    assertThat(adapter(TORCH).podSets(job).get(0).template.getSpec().getNodeSelector())
        .isNullOrEmpty();
  }

  @Test
  void startedWithAnOverridePerPodSetAndRestoredToItsAuthorsOverrides() {
    TrainJob job =
        trainJob(
            """
            suspend: true
            podSpecOverrides:
            - targetJobs: [{name: node}]
              nodeSelector: {zone: a}
            """);
    TrainJobAdapter adapter = adapter(TORCH);
    List<PodSet> podSets = adapter.podSets(job);
    Toleration spot = new Toleration("NoSchedule", "lifecycle", "Equal", null, "spot");
    TrainJob started =
        adapter.admitted(
            job,
            AdmittedWorkloads.onFlavor(podSets, "h100"),
            FixedFlavors.labelled("gpu.product", spot));
    assertThat(adapter.isSuspended(started)).isFalse();
    assertThat(started.getSpec().podSpecOverrides).hasSize(4);
    TrainJob.PodSpecOverride node = started.getSpec().podSpecOverrides.get(2);
    assertThat(node.targetJobs).extracting(t -> t.name).containsExactly("node");
    assertThat(node.nodeSelector)
        .containsEntry("gpu.product", "h100")
        .containsEntry("zone", "a")
        .containsEntry("pool", "train");
    // The template's own toleration is written again: the override's replace the template's.
    assertThat(node.tolerations).extracting(Toleration::getKey).containsExactly("old", "lifecycle");
    assertThat(started.getMetadata().getAnnotations())
        .containsEntry(TrainJobAdapter.OWN_OVERRIDES_ANNOTATION, "1");
    assertThat(adapter.podSets(started))
        .as("what the Workload was made from is unchanged by starting")
        .usingRecursiveComparison()
        .isEqualTo(podSets);

    TrainJob restored = adapter.restored(started, AdmittedWorkloads.onFlavor(podSets, "h100"));
    assertThat(adapter.isSuspended(restored)).isTrue();
    assertThat(restored.getSpec().podSpecOverrides)
        .singleElement()
        .satisfies(o -> assertThat(o.nodeSelector).containsExactly(Map.entry("zone", "a")));
    assertThat(restored.getMetadata().getAnnotations())
        .doesNotContainKey(TrainJobAdapter.OWN_OVERRIDES_ANNOTATION);
  }

  @Test
  void finishedOnTheTrainersCompleteOrFailedAndReadyFromItsJobsStatus() {
    TrainJobAdapter adapter = adapter(TORCH);
    TrainJob job = trainJob("trainer: {numNodes: 2}\n");
    assertThat(adapter.finished(job)).isEmpty();
    job.setStatus(new TrainJob.Status());
    job.getStatus().jobsStatus =
        List.of(
            Map.of("name", "node", "ready", 1, "succeeded", 0),
            Map.of("name", "sidecar-jobs", "ready", 1, "succeeded", 1));
    // One node Job of 2 pods; two sidecar Jobs of 3 pods.
    assertThat(adapter.readyPods(job)).isEqualTo(2 + 6);
    job.getStatus().conditions =
        List.of(Map.of("type", "Failed", "status", "True", "message", "node-0 failed"));
    assertThat(adapter.finished(job)).contains(new TrainJobAdapter.Finish(false, "node-0 failed"));
  }

  @Test
  void withoutItsRuntimeItIsNotManaged() {
    TrainJobAdapter adapter = new TrainJobAdapter(job -> Optional.empty(), job -> List.of());
    assertThat(adapter.manages(trainJob("suspend: true\n"))).isFalse();
    assertThat(adapter(TORCH).manages(trainJob("suspend: true\n"))).isTrue();
  }

  @Test
  void ownerStatusIsTheTrainersLatestConditionThatHolds() {
    TrainJob waiting = trainJob("suspend: true");
    assertThat(adapter(TORCH).ownerStatus(waiting)).isEqualTo("Suspended");
    TrainJob done = trainJob("suspend: false");
    done.setStatus(new TrainJob.Status());
    done.getStatus().conditions =
        List.of(
            Map.of(
                "type",
                "Suspended",
                "status",
                "False",
                "lastTransitionTime",
                "2026-12-01T09:00:00Z"),
            Map.of(
                "type",
                "Complete",
                "status",
                "True",
                "lastTransitionTime",
                "2026-12-01T11:00:00Z"));
    assertThat(adapter(TORCH).ownerStatus(done)).isEqualTo("Complete");
  }
}
