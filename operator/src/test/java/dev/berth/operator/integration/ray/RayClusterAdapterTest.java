package dev.berth.operator.integration.ray;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.api.v1beta1.PodSet;
import dev.berth.operator.integration.FixedFlavors;
import dev.berth.operator.integration.PriorityResolver;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RayClusterAdapterTest {
  private final RayClusterAdapter adapter = new RayClusterAdapter();
  private static final Toleration SPOT =
      new TolerationBuilder().withKey("spot").withOperator("Exists").build();

  @Test
  void theHeadAndEachWorkerGroupAreOnePodSetEachCountingReplicasTimesHosts() {
    List<PodSet> podSets = adapter.podSets(RayObjects.cluster(3, 2));
    assertThat(podSets).extracting(ps -> ps.name).containsExactly("head", "gpu");
    assertThat(podSets).extracting(ps -> ps.count).containsExactly(1, 6);
    assertThat(podSets).extracting(ps -> ps.minCount).containsOnlyNulls();
    // KubeRay's init container in every worker pod is counted: its pods ask for it.
    assertThat(podSets.get(1).template.getSpec().getInitContainers())
        .singleElement()
        .satisfies(c -> assertThat(c.getName()).isEqualTo("wait-gcs-ready"));
    assertThat(podSets.get(0).template.getSpec().getInitContainers()).isEmpty();
  }

  @Test
  void unsetReplicasAndHostsAreOnePodEach() {
    RayCluster cluster = RayObjects.cluster(1, 1);
    cluster.getSpec().workerGroupSpecs.get(0).replicas = null;
    cluster.getSpec().workerGroupSpecs.get(0).numOfHosts = null;
    assertThat(adapter.podSets(cluster)).extracting(ps -> ps.count).containsExactly(1, 1);
  }

  @Test
  void theWorkloadIsTheClustersWithItsPriorityAndOwner() {
    RayCluster cluster = RayObjects.cluster(2, 1);
    var workload = adapter.newWorkload(cluster, new PriorityResolver(null));
    assertThat(workload.getMetadata().getName()).startsWith("raycluster-rc-");
    assertThat(workload.getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(
            o -> {
              assertThat(o.getKind()).isEqualTo("RayCluster");
              assertThat(o.getApiVersion()).isEqualTo("ray.io/v1");
              assertThat(o.getUid()).isEqualTo("rc-uid");
            });
  }

  @Test
  void aRayJobsClusterIsLeftToItsRayJob() {
    RayCluster cluster = RayObjects.cluster(2, 1);
    assertThat(adapter.manages(cluster)).isTrue();
    cluster
        .getMetadata()
        .setOwnerReferences(
            List.of(
                new OwnerReferenceBuilder()
                    .withApiVersion("ray.io/v1")
                    .withKind("RayJob")
                    .withName("rj")
                    .withUid("rj-uid")
                    .withController(true)
                    .build()));
    assertThat(adapter.manages(cluster)).isFalse();
  }

  @Test
  void startedWithTheFlavorInTheHeadAndEveryWorkerTemplateAndRestoredAsWritten() {
    RayCluster cluster = RayObjects.cluster(2, 1);
    var workload = RayObjects.admitted(adapter.podSets(cluster), "h100");
    RayCluster started =
        adapter.admitted(cluster, workload, FixedFlavors.labelled("gpu.product", SPOT));
    assertThat(adapter.isSuspended(started)).isFalse();
    assertThat(adapter.isSuspended(cluster)).as("the input is not changed").isTrue();
    for (var template :
        List.of(
            started.getSpec().headGroupSpec.template,
            started.getSpec().workerGroupSpecs.get(0).template)) {
      assertThat(template.getSpec().getNodeSelector()).containsEntry("gpu.product", "h100");
      assertThat(template.getSpec().getTolerations()).containsExactly(SPOT);
    }
    // Fields Berth does not model survive the round trip.
    assertThat(Serialization.asJson(started)).contains("dashboard-host").contains("maxReplicas");

    RayCluster restored = adapter.restored(started, workload);
    assertThat(adapter.isSuspended(restored)).isTrue();
    assertThat(restored.getSpec().workerGroupSpecs.get(0).template.getSpec().getNodeSelector())
        .isNullOrEmpty();
    assertThat(restored.getSpec().headGroupSpec.template.getSpec().getTolerations())
        .isNullOrEmpty();
    assertThat(restored.getSpec().workerGroupSpecs.get(0).template.getMetadata().getAnnotations())
        .containsEntry("note", "kept");
  }

  @Test
  void aRayClusterNeverFinishes() {
    RayCluster cluster = RayObjects.cluster(1, 1);
    cluster.setStatus(new RayCluster.Status());
    cluster.getStatus().state = "failed";
    assertThat(adapter.finished(cluster)).isEmpty();
  }

  @Test
  void itsPodsStopOnlyOnceKubeRayReportsItSuspendedAndNoneOfItsPodsHoldsANode() {
    RayCluster cluster = RayObjects.cluster(1, 1);
    cluster.getSpec().suspend = false;
    assertThat(adapter.activePods(cluster)).as("running").isPositive();
    cluster.getSpec().suspend = true;
    assertThat(adapter.activePods(cluster)).as("suspended, KubeRay has not said so").isPositive();
    cluster.setStatus(new RayCluster.Status());
    cluster.getStatus().conditions =
        new ArrayList<>(List.of(Map.of("type", "RayClusterSuspended", "status", "True")));
    assertThat(adapter.activePods(cluster)).isZero();
    assertThat(adapter.podLabels(cluster)).containsExactly(Map.entry("ray.io/cluster", "rc"));
    assertThat(adapter.hasPodsToCount(cluster, List.of(RayObjects.pod("Running")))).isTrue();
    assertThat(
            adapter.hasPodsToCount(
                cluster, List.of(RayObjects.pod("Succeeded"), RayObjects.pod("Failed"))))
        .isFalse();
    assertThat(adapter.hasPodsToCount(cluster, List.of())).isFalse();
  }

  @Test
  void everyPodIsReadyOnceKubeRayReportsTheClusterReady() {
    RayCluster cluster = RayObjects.cluster(3, 1);
    assertThat(adapter.readyPods(cluster)).isZero();
    cluster.setStatus(new RayCluster.Status());
    cluster.getStatus().state = "ready";
    assertThat(adapter.readyPods(cluster)).isEqualTo(4);
  }

  @Test
  void ownerStatusIsKubeRaysState() {
    RayCluster cluster = RayObjects.cluster(2, 1);
    assertThat(adapter.ownerStatus(cluster)).isEqualTo("Suspended");
    cluster.setStatus(new RayCluster.Status());
    cluster.getStatus().conditions = List.of(Map.of("type", "HeadPodReady", "status", "True"));
    assertThat(adapter.ownerStatus(cluster))
        .as("a condition, before a state")
        .isEqualTo("HeadPodReady");
    cluster.getStatus().state = "ready";
    assertThat(adapter.ownerStatus(cluster)).isEqualTo("ready");
  }
}
