package dev.berth.operator.integration.ray;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.api.v1beta1.PodSet;
import dev.berth.operator.admission.PodRequests;
import dev.berth.operator.integration.FixedFlavors;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RayJobAdapterTest {
  private final RayJobAdapter adapter = new RayJobAdapter();

  @Test
  void itsClusterAndItsSubmitterJobAreOneWorkloadInK8sJobModeKubeRaysDefault() {
    for (String mode : new String[] {null, "K8sJobMode"}) {
      List<PodSet> podSets = adapter.podSets(RayObjects.job(mode));
      assertThat(podSets).extracting(ps -> ps.name).containsExactly("head", "gpu", "submitter");
      assertThat(podSets).extracting(ps -> ps.count).containsExactly(1, 2, 1);
      // KubeRay's default submitter container, in the head's image.
      var submitter = podSets.get(2).template.getSpec().getContainers().get(0);
      assertThat(submitter.getName()).isEqualTo("ray-job-submitter");
      assertThat(submitter.getImage()).isEqualTo("rayproject/ray:2.9.0");
      assertThat(submitter.getResources().getRequests())
          .containsEntry("cpu", new Quantity("500m"))
          .containsEntry("memory", new Quantity("200Mi"));
    }
  }

  @Test
  void inHttpModeThereIsNoSubmitterAndInSidecarModeTheHeadCarriesIt() {
    assertThat(adapter.podSets(RayObjects.job("HTTPMode")))
        .extracting(ps -> ps.name)
        .containsExactly("head", "gpu");
    List<PodSet> sidecar = adapter.podSets(RayObjects.job("SidecarMode"));
    assertThat(sidecar).extracting(ps -> ps.name).containsExactly("head", "gpu");
    // 2 CPUs of the head's container and the sidecar's 500m.
    assertThat(
            Quantity.getAmountInBytes(PodRequests.of(sidecar.get(0).template.getSpec()).get("cpu")))
        .isEqualByComparingTo("2.5");
    assertThat(sidecar.get(0).template.getSpec().getContainers())
        .extracting(c -> c.getName())
        .containsExactly("ray-head", "ray-job-submitter");
  }

  @Test
  void startedWithFlavorsInEveryTemplateTheSubmittersWrittenOutAndItsPodsLabelled() {
    RayJob job = RayObjects.job(null);
    var workload = RayObjects.admitted(adapter.podSets(job), "a100");
    RayJob started = adapter.admitted(job, workload, FixedFlavors.labelled("gpu.product"));
    assertThat(adapter.isSuspended(started)).isFalse();
    var cluster = started.getSpec().rayClusterSpec;
    for (var template :
        List.of(
            cluster.headGroupSpec.template,
            cluster.workerGroupSpecs.get(0).template,
            started.getSpec().submitterPodTemplate)) {
      assertThat(template.getSpec().getNodeSelector()).containsEntry("gpu.product", "a100");
      assertThat(template.getMetadata().getLabels()).containsEntry(RayJobAdapter.POD_LABEL, "rj");
    }
    assertThat(adapter.podSets(started))
        .as("what the Workload was made from is unchanged by starting")
        .extracting(ps -> ps.count)
        .containsExactly(1, 2, 1);

    RayJob restored = adapter.restored(started, workload);
    assertThat(adapter.isSuspended(restored)).isTrue();
    assertThat(restored.getSpec().rayClusterSpec.headGroupSpec.template.getSpec().getNodeSelector())
        .isNullOrEmpty();
    assertThat(restored.getSpec().submitterPodTemplate.getSpec().getNodeSelector()).isNullOrEmpty();
  }

  @Test
  void finishedWhenKubeRayReportsCompleteOrFailed() {
    RayJob job = RayObjects.job(null);
    assertThat(adapter.finished(job)).isEmpty();
    job.setStatus(new RayJob.Status());
    job.getStatus().jobDeploymentStatus = "Running";
    assertThat(adapter.finished(job)).isEmpty();
    job.getStatus().jobDeploymentStatus = "Complete";
    job.getStatus().jobStatus = "SUCCEEDED";
    assertThat(adapter.finished(job)).hasValueSatisfying(f -> assertThat(f.succeeded()).isTrue());
    job.getStatus().jobDeploymentStatus = "Failed";
    job.getStatus().jobStatus = "FAILED";
    job.getStatus().reason = "SubmissionFailed";
    assertThat(adapter.finished(job))
        .hasValueSatisfying(
            f -> {
              assertThat(f.succeeded()).isFalse();
              assertThat(f.message()).contains("SubmissionFailed");
            });
  }

  @Test
  void noPodRunsOnceKubeRayHasSuspendedItAndNoneOfItsLabelledPodsHoldsANode() {
    RayJob job = RayObjects.job(null);
    assertThat(adapter.activePods(job)).as("never started").isZero();
    job.setStatus(new RayJob.Status());
    job.getStatus().jobDeploymentStatus = "Suspending";
    assertThat(adapter.activePods(job)).isPositive();
    job.getStatus().jobDeploymentStatus = "Suspended";
    assertThat(adapter.activePods(job)).isZero();
    assertThat(adapter.podLabels(job)).containsExactly(Map.entry(RayJobAdapter.POD_LABEL, "rj"));
    assertThat(adapter.hasPodsToCount(job, List.of(RayObjects.pod("Running")))).isTrue();
    assertThat(adapter.hasPodsToCount(job, List.of(RayObjects.pod("Succeeded")))).isFalse();
  }

  @Test
  void aRayJobOnAnExistingClusterIsNotRunByBerth() {
    RayJob job = RayObjects.job(null);
    assertThat(adapter.manages(job)).isTrue();
    job.getSpec().clusterSelector = Map.of("ray.io/cluster", "shared");
    assertThat(adapter.manages(job)).isFalse();
  }

  @Test
  void everyPodIsReadyOnceItsClusterIs() {
    RayJob job = RayObjects.job(null);
    job.setStatus(new RayJob.Status());
    job.getStatus().rayClusterStatus = Map.of("state", "ready");
    assertThat(adapter.readyPods(job)).isEqualTo(4);
  }

  @Test
  void ownerStatusIsKubeRaysDeploymentStatusWithTheJobStatus() {
    RayJob job = RayObjects.job(null);
    assertThat(adapter.ownerStatus(job)).as("nothing from KubeRay yet").isEqualTo("Suspended");
    job.setStatus(new RayJob.Status());
    job.getStatus().jobDeploymentStatus = "Suspended";
    assertThat(adapter.ownerStatus(job)).isEqualTo("Suspended");
    job.getSpec().suspend = false;
    job.getStatus().jobDeploymentStatus = "Running";
    job.getStatus().jobStatus = "RUNNING";
    assertThat(adapter.ownerStatus(job)).isEqualTo("Running (job RUNNING)");
  }
}
