package dev.berth.operator.integration.job;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.api.v1beta1.Admission;
import dev.berth.api.v1beta1.Berth;
import dev.berth.api.v1beta1.PodSetAssignment;
import dev.berth.api.v1beta1.Workload;
import dev.berth.api.v1beta1.WorkloadSpec;
import dev.berth.api.v1beta1.WorkloadStatus;
import dev.berth.operator.integration.FixedFlavors;
import dev.berth.operator.integration.Integration;
import dev.berth.operator.integration.PriorityResolver;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobConditionBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JobAdapterTest {
  private final JobAdapter adapter = new JobAdapter();
  private final PriorityResolver noPriorities = new PriorityResolver(null);

  private static final Toleration GPU =
      new TolerationBuilder()
          .withKey("nvidia.com/gpu")
          .withOperator("Exists")
          .withEffect("NoSchedule")
          .build();

  private static final Integration.FlavorLookup FLAVORS = FixedFlavors.labelled("gpu", GPU);

  private static Job job(int parallelism, Integer completions) {
    return new JobBuilder()
        .withNewMetadata()
        .withName("train")
        .withNamespace("team")
        .withUid("0b7c7c1e-7d55-4b36-9a5e-1c2a6f1f3a10")
        .addToLabels(Berth.QUEUE_NAME_LABEL, "training")
        .endMetadata()
        .withNewSpec()
        .withSuspend(true)
        .withParallelism(parallelism)
        .withCompletions(completions)
        .withNewTemplate()
        .withNewSpec()
        .addToNodeSelector("zone", "a")
        .addNewContainer()
        .withName("main")
        .withNewResources()
        .addToRequests("nvidia.com/gpu", new Quantity("8"))
        .endResources()
        .endContainer()
        .endSpec()
        .endTemplate()
        .endSpec()
        .build();
  }

  private static Workload admission(int count) {
    return admission(count, null);
  }

  /** The job's Workload as admitted, optionally placed in topology domains. */
  private static Workload admission(int count, PodSetAssignment.TopologyAssignment placed) {
    PodSetAssignment ps = new PodSetAssignment();
    ps.name = "main";
    ps.flavors = Map.of("nvidia.com/gpu", "h100");
    ps.count = count;
    ps.topologyAssignment = placed;
    Admission admission = new Admission();
    admission.clusterQueue = "team-cq";
    admission.podSetAssignments = List.of(ps);
    Workload wl = new Workload();
    wl.getMetadata().setUid("wl-uid-1");
    wl.setSpec(new WorkloadSpec());
    wl.setStatus(new WorkloadStatus());
    wl.getStatus().admission = admission;
    return wl;
  }

  @Test
  void topologyAnnotationsOfTheTemplateBecomeThePodSetsTopologyRequest() {
    Job job = job(4, 4);
    job.getSpec().getTemplate().setMetadata(new io.fabric8.kubernetes.api.model.ObjectMeta());
    job.getSpec()
        .getTemplate()
        .getMetadata()
        .setAnnotations(
            Map.of(
                Berth.PODSET_REQUIRED_TOPOLOGY, "topology.berth.dev/rack",
                Berth.PODSET_SLICE_REQUIRED_TOPOLOGY, "kubernetes.io/hostname",
                Berth.PODSET_SLICE_SIZE, "2"));
    var request = adapter.newWorkload(job, noPriorities).getSpec().podSets.get(0).topologyRequest;
    assertThat(request.required).isEqualTo("topology.berth.dev/rack");
    assertThat(request.podSetSliceRequiredTopology).isEqualTo("kubernetes.io/hostname");
    assertThat(request.podSetSliceSize).isEqualTo(2);
    assertThat(
            adapter.newWorkload(job(4, 4), noPriorities).getSpec().podSets.get(0).topologyRequest)
        .isNull();
  }

  @Test
  void aTopologyPlacedPodSetsPodsAreLabelledForTheGateAndUnlabelledOnEviction() {
    var placed = new PodSetAssignment.TopologyAssignment();
    placed.levels = List.of("topology.berth.dev/rack");
    var domain = new PodSetAssignment.TopologyAssignment.Domain();
    domain.values = List.of("r1");
    domain.count = 2;
    placed.domains = List.of(domain);
    Job original = job(2, 2);
    Workload wl = admission(2, placed);
    wl.getSpec().podSets =
        List.of(new dev.berth.api.v1beta1.PodSet("main", 2, original.getSpec().getTemplate()));
    Job started = adapter.admitted(original, wl, FLAVORS);
    assertThat(started.getSpec().getTemplate().getMetadata().getLabels())
        .containsEntry(Berth.PODSET_LABEL, "main")
        .containsEntry(Berth.WORKLOAD_LABEL, "wl-uid-1");
    Job restored = adapter.restored(started, wl);
    var labels = restored.getSpec().getTemplate().getMetadata().getLabels();
    assertThat(labels == null ? Map.<String, String>of() : labels)
        .doesNotContainKeys(Berth.PODSET_LABEL, Berth.WORKLOAD_LABEL);
    var quotaOnly =
        adapter.admitted(original, admission(2), FLAVORS).getSpec().getTemplate().getMetadata();
    assertThat(
            quotaOnly == null
                || quotaOnly.getLabels() == null
                || !quotaOnly.getLabels().containsKey(Berth.PODSET_LABEL))
        .as("quota alone: no gate label")
        .isTrue();
  }

  @Test
  void podCountIsTheSmallerOfParallelismAndCompletions() {
    assertThat(JobAdapter.podCount(job(4, 2))).isEqualTo(2);
    assertThat(JobAdapter.podCount(job(4, null))).isEqualTo(4);
    assertThat(JobAdapter.podCount(job(3, 10))).isEqualTo(3);
  }

  @Test
  void newWorkloadIsOwnedByTheJobAndCarriesItsQueueAndMinCount() {
    Job job = job(4, 4);
    job.getMetadata().setAnnotations(Map.of(Berth.JOB_MIN_PARALLELISM_ANNOTATION, "2"));
    Workload wl = adapter.newWorkload(job, noPriorities);
    assertThat(wl.getMetadata().getName())
        .startsWith("job-train-")
        .hasSize("job-train-".length() + 5);
    assertThat(wl.getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(
            o -> {
              assertThat(o.getController()).isTrue();
              assertThat(o.getUid()).isEqualTo(job.getMetadata().getUid());
            });
    assertThat(wl.getMetadata().getLabels()).containsEntry(Berth.OWNER_KIND_LABEL, "Job");
    assertThat(wl.getSpec().queueName).isEqualTo("training");
    assertThat(wl.getSpec().priority).isZero();
    assertThat(wl.getSpec().podSets)
        .singleElement()
        .satisfies(
            ps -> {
              assertThat(ps.name).isEqualTo("main");
              assertThat(ps.count).isEqualTo(4);
              assertThat(ps.minCount).isEqualTo(2);
            });
  }

  @Test
  void admissionInjectsFlavorAndUnsuspends() {
    Job started = adapter.admitted(job(2, 2), admission(2), FLAVORS);
    assertThat(started.getSpec().getSuspend()).isFalse();
    assertThat(started.getSpec().getTemplate().getSpec().getNodeSelector())
        .containsEntry("zone", "a")
        .containsEntry("gpu", "h100");
    assertThat(started.getSpec().getTemplate().getSpec().getTolerations()).containsExactly(GPU);
    assertThat(started.getSpec().getParallelism()).isEqualTo(2);
  }

  @Test
  void partialAdmissionLowersParallelismAndEvictionRestoresIt() {
    Job original = job(4, 4);
    Job started = adapter.admitted(original, admission(3), FLAVORS);
    assertThat(started.getSpec().getParallelism()).isEqualTo(3);
    assertThat(started.getMetadata().getAnnotations())
        .containsEntry(JobAdapter.ORIGINAL_PARALLELISM, "4");

    Workload wl = adapter.newWorkload(original, noPriorities);
    Job restored = adapter.restored(started, wl);
    assertThat(restored.getSpec().getSuspend()).isTrue();
    assertThat(restored.getSpec().getParallelism()).isEqualTo(4);
    assertThat(restored.getMetadata().getAnnotations())
        .doesNotContainKey(JobAdapter.ORIGINAL_PARALLELISM);
    assertThat(restored.getSpec().getTemplate().getSpec().getNodeSelector())
        .containsExactlyEntriesOf(Map.of("zone", "a"));
    assertThat(restored.getSpec().getTemplate().getSpec().getTolerations()).isNullOrEmpty();
  }

  @Test
  void theOriginalJobIsNeverModified() {
    Job original = job(2, 2);
    adapter.admitted(original, admission(2), FLAVORS);
    assertThat(original.getSpec().getSuspend()).isTrue();
    assertThat(original.getSpec().getTemplate().getSpec().getNodeSelector())
        .containsOnlyKeys("zone");
  }

  @Test
  void completeAndFailedConditionsFinishTheWorkload() {
    Job done = job(1, 1);
    done.setStatus(new io.fabric8.kubernetes.api.model.batch.v1.JobStatus());
    assertThat(adapter.finished(done)).isEmpty();
    done.getStatus()
        .setConditions(
            List.of(
                new JobConditionBuilder()
                    .withType("Failed")
                    .withStatus("True")
                    .withMessage("BackoffLimitExceeded")
                    .build()));
    assertThat(adapter.finished(done))
        .hasValueSatisfying(
            f -> {
              assertThat(f.succeeded()).isFalse();
              assertThat(f.message()).isEqualTo("BackoffLimitExceeded");
            });
    done.getStatus()
        .setConditions(
            List.of(new JobConditionBuilder().withType("Complete").withStatus("True").build()));
    assertThat(adapter.finished(done)).hasValueSatisfying(f -> assertThat(f.succeeded()).isTrue());
  }

  @Test
  void terminatingPodsCountAsActiveUntilTheyAreGone() {
    Job job = job(2, 2);
    assertThat(adapter.activePods(job)).isZero();
    job.setStatus(
        new io.fabric8.kubernetes.api.model.batch.v1.JobStatusBuilder()
            .withActive(0)
            .withTerminating(2)
            .build());
    assertThat(adapter.activePods(job)).isEqualTo(2);
    job.getStatus().setActive(1);
    job.getStatus().setTerminating(null);
    assertThat(adapter.activePods(job)).isEqualTo(1);
  }

  @Test
  void readyPodsAreTheJobControllersReadyAndSucceededCounts() {
    Job job = new io.fabric8.kubernetes.api.model.batch.v1.JobBuilder().build();
    assertThat(adapter.readyPods(job)).isZero();
    job.setStatus(
        new io.fabric8.kubernetes.api.model.batch.v1.JobStatusBuilder()
            .withActive(4)
            .withReady(2)
            .withSucceeded(1)
            .build());
    assertThat(adapter.readyPods(job)).isEqualTo(3);
  }

  /**
   * The fault suite's stall: a Job evicted just as its pod succeeded had its start time cleared
   * while the pod was still uncounted; the Job controller could then never finish it ("startTime is
   * required for finished job") and its quota was never given back.
   */
  @Test
  void aStartTimeIsKeptWhilePodsAreStillToBeCounted() {
    Job job = job(1, 1);
    assertThat(adapter.hasPodsToCount(job)).isFalse();
    job.setStatus(
        new io.fabric8.kubernetes.api.model.batch.v1.JobStatusBuilder()
            .withActive(0)
            .withNewUncountedTerminatedPods()
            .withSucceeded("pod-uid")
            .endUncountedTerminatedPods()
            .build());
    assertThat(adapter.activePods(job)).isZero();
    assertThat(adapter.hasPodsToCount(job)).isTrue();
    job.getStatus().getUncountedTerminatedPods().setSucceeded(List.of());
    job.getStatus().setSucceeded(1);
    assertThat(adapter.hasPodsToCount(job)).isFalse();
    job.getStatus().setTerminating(1);
    assertThat(adapter.hasPodsToCount(job)).isTrue();
  }

  /**
   * The third stall: the Job controller's suspend sync writes active 0 and terminating 0 while the
   * pod it just deleted still runs; the pods themselves say it is not counted yet.
   */
  @Test
  void aPodStillCarryingTheTrackingFinalizerIsToCountWhateverTheStatusSays() {
    Job job = job(1, 1);
    job.getMetadata().setUid("job-uid");
    job.setStatus(
        new io.fabric8.kubernetes.api.model.batch.v1.JobStatusBuilder()
            .withActive(0)
            .withTerminating(0)
            .build());
    assertThat(adapter.podLabels(job))
        .isEqualTo(Map.of("batch.kubernetes.io/controller-uid", "job-uid"));
    assertThat(adapter.hasPodsToCount(job, List.of())).isFalse();
    assertThat(adapter.hasPodsToCount(job, List.of(pod("Running", true)))).isTrue();
    assertThat(adapter.hasPodsToCount(job, List.of(pod("Succeeded", true)))).isTrue();
    assertThat(adapter.hasPodsToCount(job, List.of(pod("Running", false)))).isTrue();
    assertThat(adapter.hasPodsToCount(job, List.of(pod("Succeeded", false), pod("Failed", false))))
        .isFalse();
  }

  private static Pod pod(String phase, boolean tracked) {
    return new PodBuilder()
        .withNewMetadata()
        .withName("pod")
        .withFinalizers(tracked ? List.of("batch.kubernetes.io/job-tracking") : List.of())
        .endMetadata()
        .withNewStatus()
        .withPhase(phase)
        .endStatus()
        .build();
  }

  @Test
  void ownerStatusIsTheJobControllersLatestConditionThatHolds() {
    Job waiting = job(1, 1);
    assertThat(adapter.ownerStatus(waiting))
        .as("no condition yet: suspended")
        .isEqualTo("Suspended");
    Job running = job(1, 1);
    running.getSpec().setSuspend(false);
    running.setStatus(new io.fabric8.kubernetes.api.model.batch.v1.JobStatus());
    running.getStatus().setActive(2);
    assertThat(adapter.ownerStatus(running)).isEqualTo("Running (2 pods)");
    running
        .getStatus()
        .setConditions(
            List.of(
                new JobConditionBuilder()
                    .withType("Suspended")
                    .withStatus("False")
                    .withLastTransitionTime("2026-12-01T10:00:00Z")
                    .build(),
                new JobConditionBuilder()
                    .withType("FailureTarget")
                    .withStatus("True")
                    .withLastTransitionTime("2026-12-01T10:05:00Z")
                    .build(),
                new JobConditionBuilder()
                    .withType("Failed")
                    .withStatus("True")
                    .withLastTransitionTime("2026-12-01T10:05:01Z")
                    .build()));
    assertThat(adapter.ownerStatus(running)).isEqualTo("Failed");
  }
}
