package dev.berth.testing;

import static dev.berth.testing.Quota.cpu;
import static dev.berth.testing.Quota.gpu;
import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.api.v1beta1.ClusterQueue;
import dev.berth.api.v1beta1.Workload;
import dev.berth.webhook.validation.BerthValidators;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import org.junit.jupiter.api.Test;

/** The builders make objects the validators accept, shaped as the CRDs require. */
class BuildersTest {

  @Test
  void flavorsWithTheSameResourcesShareAResourceGroup() {
    ClusterQueue cq =
        ClusterQueues.named("team-a")
            .cohort("ai")
            .flavor("h100", gpu("8").borrowingLimit("4"), cpu("96"))
            .flavor("a100", gpu("16"), cpu("64"))
            .flavor("bulk-memory", Quota.memory("512Gi"))
            .build();

    assertThat(cq.getSpec().resourceGroups).hasSize(2);
    assertThat(cq.getSpec().resourceGroups.get(0).coveredResources)
        .containsExactly(Quota.GPU, "cpu");
    assertThat(cq.getSpec().resourceGroups.get(0).flavors)
        .extracting(f -> f.name)
        .containsExactly("h100", "a100");
    assertThat(cq.getSpec().resourceGroups.get(0).flavors.get(0).resources.get(0).borrowingLimit)
        .isEqualTo(new Quantity("4"));
    assertThat(BerthValidators.clusterQueue(cq)).isEmpty();
  }

  @Test
  void theOtherKindsPassTheirValidators() {
    assertThat(
            BerthValidators.cohort(
                Cohorts.named("ai")
                    .parent("org")
                    .flavor("h100", gpu("16").lendingLimit("8"))
                    .build()))
        .isEmpty();
    assertThat(
            BerthValidators.resourceFlavor(
                ResourceFlavors.named("h100")
                    .nodeLabel("nvidia.com/gpu.product", "H100")
                    .taint("nvidia.com/gpu", "present", "NoSchedule")
                    .toleration("nvidia.com/gpu", "NoSchedule")
                    .build()))
        .isEmpty();
    assertThat(
            BerthValidators.localQueue(
                LocalQueues.named("training").in("team").clusterQueue("team-a").build()))
        .isEmpty();
  }

  @Test
  void aReservationUsesEachPodSetsRequestsTimesItsCount() {
    Workload wl =
        Workloads.named("train")
            .in("team")
            .queue("lq")
            .podSet("launcher", 1)
            .request("cpu", "500m")
            .podSet("workers", 4)
            .request("cpu", "2")
            .request(Quota.GPU, "8")
            .admitted("team-a", "h100", "2026-01-01T00:00:00Z")
            .build();

    var assignments = wl.getStatus().admission.podSetAssignments;
    assertThat(assignments).extracting(a -> a.name).containsExactly("launcher", "workers");
    assertThat(assignments.get(1).count).isEqualTo(4);
    assertThat(assignments.get(1).flavors).containsEntry(Quota.GPU, "h100");
    assertThat(assignments.get(1).resourceUsage.get(Quota.GPU).getNumericalAmount().intValue())
        .isEqualTo(32);
    assertThat(wl.getStatus().conditions)
        .extracting(c -> c.type)
        .containsExactly("QuotaReserved", "Admitted");
    assertThat(BerthValidators.workload(wl)).isEmpty();
  }

  @Test
  void aJobsExtendedResourceRequestIsAlsoItsLimit() {
    Job job =
        Jobs.named("train")
            .in("team")
            .queue("lq")
            .request(Quota.GPU, "8")
            .request("cpu", "4")
            .build();

    var resources = job.getSpec().getTemplate().getSpec().getContainers().get(0).getResources();
    assertThat(resources.getLimits()).containsOnlyKeys(Quota.GPU);
    assertThat(resources.getRequests()).containsOnlyKeys(Quota.GPU, "cpu");
    assertThat(job.getSpec().getSuspend()).isTrue();
  }
}
