package dev.berth.operator.admission;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.api.v1beta1.ClusterQueue;
import dev.berth.api.v1beta1.ClusterQueueSpec;
import dev.berth.api.v1beta1.Condition;
import dev.berth.api.v1beta1.FairSharing;
import dev.berth.api.v1beta1.FlavorQuotas;
import dev.berth.api.v1beta1.PodSet;
import dev.berth.api.v1beta1.ResourceGroup;
import dev.berth.api.v1beta1.ResourceQuota;
import dev.berth.api.v1beta1.Workload;
import dev.berth.api.v1beta1.WorkloadSpec;
import dev.berth.api.v1beta1.WorkloadStatus;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class ModelTranslatorTest {

  @Test
  void quotasBecomeExactCanonicalUnits() {
    ResourceQuota cpu = new ResourceQuota("cpu", "2500m");
    cpu.borrowingLimit = new Quantity("1");
    ResourceQuota memory = new ResourceQuota("memory", "16Gi");
    memory.lendingLimit = new Quantity("4Gi");
    ClusterQueue cq = new ClusterQueue();
    cq.getMetadata().setName("team");
    cq.setSpec(new ClusterQueueSpec());
    cq.getSpec().cohortName = "ai";
    cq.getSpec().fairSharing = new FairSharing();
    cq.getSpec().fairSharing.weight = new Quantity("1.5");
    cq.getSpec().resourceGroups =
        List.of(
            new ResourceGroup(
                List.of("cpu", "memory"), List.of(new FlavorQuotas("h100", List.of(cpu, memory)))));

    var model = ModelTranslator.clusterQueue(cq);

    var quotas = model.resourceGroups().get(0).flavors().get(0).resources();
    assertThat(quotas.get(0).nominalQuota()).isEqualTo(2500);
    assertThat(quotas.get(0).borrowingLimit()).isEqualTo(1000);
    assertThat(quotas.get(1).nominalQuota()).isEqualTo(16L * 1024 * 1024 * 1024);
    assertThat(quotas.get(1).lendingLimit()).isEqualTo(4L * 1024 * 1024 * 1024);
    assertThat(model.cohort()).isEqualTo("ai");
    assertThat(model.fairSharingWeight()).isEqualTo(1500);
    assertThat(model.namespaceSelector()).isNull();
  }

  @Test
  void aWorkloadQueuesByCreationUntilRequeued() {
    Workload wl = new Workload();
    wl.getMetadata().setName("train");
    wl.getMetadata().setNamespace("team");
    wl.getMetadata().setUid("uid-1");
    wl.getMetadata().setCreationTimestamp("2026-01-01T00:00:00Z");
    wl.setSpec(new WorkloadSpec());
    wl.getSpec().queueName = "q";
    wl.getSpec().priority = 7;
    wl.getSpec().podSets =
        List.of(
            new PodSet(
                "main",
                3,
                new PodTemplateSpecBuilder()
                    .withNewSpec()
                    .addNewContainer()
                    .withName("c")
                    .withNewResources()
                    .addToRequests("cpu", new Quantity("250m"))
                    .addToRequests("nvidia.com/gpu", new Quantity("2"))
                    .endResources()
                    .endContainer()
                    .endSpec()
                    .build()));

    var model = ModelTranslator.workload(wl);
    assertThat(model.queueTimestamp())
        .isEqualTo(Instant.parse("2026-01-01T00:00:00Z").toEpochMilli());
    assertThat(model.priority()).isEqualTo(7);
    assertThat(model.podSets().get(0).requests())
        .containsEntry("cpu", 250L)
        .containsEntry("nvidia.com/gpu", 2L);

    wl.setStatus(new WorkloadStatus());
    Condition requeued = new Condition("Requeued", "True", "Preempted", "back in line");
    requeued.lastTransitionTime = "2026-01-01T01:00:00Z";
    wl.getStatus().conditions = new java.util.ArrayList<>(List.of(requeued));
    assertThat(ModelTranslator.workload(wl).queueTimestamp())
        .isEqualTo(Instant.parse("2026-01-01T01:00:00Z").toEpochMilli());
  }

  @Test
  void submissionsInTheSameSecondKeepTheirOrderWithinABoundedWindow() {
    String at = dev.berth.api.v1beta1.Berth.SUBMITTED_AT_ANNOTATION;
    Workload wl = new Workload();
    wl.getMetadata().setCreationTimestamp("2026-01-01T00:00:05Z");
    long created = Instant.parse("2026-01-01T00:00:05Z").toEpochMilli();
    assertThat(ModelTranslator.queueTimestamp(wl)).isEqualTo(created);
    java.util.Map<String, String> annotations = new java.util.HashMap<>();
    wl.getMetadata().setAnnotations(annotations);
    annotations.put(at, "2026-01-01T00:00:04.250Z");
    assertThat(ModelTranslator.queueTimestamp(wl)).isEqualTo(created - 750);
    annotations.put(at, "2026-01-01T00:00:05.999Z");
    assertThat(ModelTranslator.queueTimestamp(wl)).isEqualTo(created + 999);
    // A hand-set time far before creation, after it, or unreadable does not move it.
    annotations.put(at, "2025-01-01T00:00:00Z");
    assertThat(ModelTranslator.queueTimestamp(wl)).isEqualTo(created);
    annotations.put(at, "2026-01-01T00:00:06Z");
    assertThat(ModelTranslator.queueTimestamp(wl)).isEqualTo(created);
    annotations.put(at, "soon");
    assertThat(ModelTranslator.queueTimestamp(wl)).isEqualTo(created);
  }

  @Test
  void requeuingTimestampCreationKeepsAPodsReadyTimeoutsPlaceByCreation() {
    Workload wl = new Workload();
    wl.getMetadata().setCreationTimestamp("2026-01-01T00:00:00Z");
    wl.setStatus(new WorkloadStatus());
    Condition requeued = new Condition("Requeued", "True", "PodsReadyTimeout", "back in line");
    requeued.lastTransitionTime = "2026-01-01T01:00:00Z";
    wl.getStatus().conditions = new java.util.ArrayList<>(List.of(requeued));
    long created = Instant.parse("2026-01-01T00:00:00Z").toEpochMilli();
    long evicted = Instant.parse("2026-01-01T01:00:00Z").toEpochMilli();
    assertThat(ModelTranslator.queueTimestamp(wl, false)).isEqualTo(evicted);
    assertThat(ModelTranslator.queueTimestamp(wl, true)).isEqualTo(created);
    // Other requeues (a preemption) go by their requeue under either strategy.
    requeued.reason = "Preempted";
    assertThat(ModelTranslator.queueTimestamp(wl, true)).isEqualTo(evicted);
  }
}
