package dev.berth.operator.admission;

import static dev.berth.testing.Quota.cpu;
import static dev.berth.testing.Quota.memory;
import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.api.v1beta1.ClusterQueue;
import dev.berth.api.v1beta1.Condition;
import dev.berth.api.v1beta1.Workload;
import dev.berth.testing.ClusterQueues;
import dev.berth.testing.Cohorts;
import dev.berth.testing.Workloads;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class ModelTranslatorTest {

  @Test
  void quotasBecomeExactCanonicalUnits() {
    ClusterQueue cq =
        ClusterQueues.named("team")
            .cohort("ai")
            .fairSharingWeight("1.5")
            .flavor("h100", cpu("2500m").borrowingLimit("1"), memory("16Gi").lendingLimit("4Gi"))
            .noNamespaceSelector()
            .build();

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
  void aMinimumRuntimeInSecondsReachesTheEngineInMillis() {
    var held =
        ModelTranslator.clusterQueue(
            ClusterQueues.named("team").minimumRuntimeSeconds(600).noNamespaceSelector().build());
    var plain = ModelTranslator.clusterQueue(ClusterQueues.named("other").build());

    assertThat(held.minimumRuntimeMillis()).isEqualTo(600_000);
    assertThat(plain.minimumRuntimeMillis()).isZero();
  }

  @Test
  void aCheckpointWindowInSecondsReachesTheEngineInMillisTenMinutesWhenAbsent() {
    ClusterQueue windowed = ClusterQueues.named("team").noNamespaceSelector().build();
    windowed.getSpec().preemption = new dev.berth.api.v1beta1.ClusterQueuePreemption();
    windowed.getSpec().preemption.checkpointWindowSeconds = 900;

    assertThat(ModelTranslator.clusterQueue(windowed).preemption().checkpointWindowMillis())
        .isEqualTo(900_000);
    assertThat(
            ModelTranslator.clusterQueue(ClusterQueues.named("other").build())
                .preemption()
                .checkpointWindowMillis())
        .isEqualTo(600_000);
  }

  @Test
  void theLastCheckpointIsReadFromTheWorkloadsAnnotation() {
    String key = dev.berth.api.v1beta1.Berth.LAST_CHECKPOINT_TIME_ANNOTATION;
    assertThat(
            ModelTranslator.lastCheckpoint(
                Workloads.named("a").annotation(key, "2026-12-07T21:30:00.5+01:00").build()))
        .isEqualTo(Instant.parse("2026-12-07T20:30:00.500Z").toEpochMilli());
    assertThat(ModelTranslator.lastCheckpoint(Workloads.named("b").build()))
        .as("absent")
        .isEqualTo(Long.MIN_VALUE);
    assertThat(
            ModelTranslator.lastCheckpoint(
                Workloads.named("c").annotation(key, "yesterday").build()))
        .as("not a time")
        .isEqualTo(Long.MIN_VALUE);
  }

  @Test
  void aCohortsFairSharingWeightIsKeptInThousandths() {
    var weighted =
        ModelTranslator.cohort(
            Cohorts.named("org-a").parent("orgs").fairSharingWeight("750m").build());
    var plain = ModelTranslator.cohort(Cohorts.named("orgs").build());

    assertThat(weighted.parentName()).isEqualTo("orgs");
    assertThat(weighted.fairSharingWeight()).isEqualTo(750);
    assertThat(plain.fairSharingWeight()).isEqualTo(1000);
  }

  @Test
  void admissionFairSharingReachesTheEngine() {
    assertThat(
            ModelTranslator.clusterQueue(
                    ClusterQueues.named("shared").usageBasedAdmissionFairSharing().build())
                .usageBasedAdmissionFairSharing())
        .isTrue();
    assertThat(
            ModelTranslator.clusterQueue(ClusterQueues.named("plain").build())
                .usageBasedAdmissionFairSharing())
        .isFalse();
    var lq =
        dev.berth.testing.LocalQueues.named("team-a")
            .in("ml")
            .clusterQueue("shared")
            .fairSharingWeight("2")
            .build();
    assertThat(ModelTranslator.localQueue(lq).fairSharingWeight()).isEqualTo(2000);
    assertThat(ModelTranslator.localQueueUsage(lq)).isEmpty();
  }

  @Test
  void aLocalQueuesStoredUsageIsReadInBaseUnitsWithItsInstant() {
    var lq = dev.berth.testing.LocalQueues.named("team-a").in("ml").clusterQueue("shared").build();
    lq.setStatus(new dev.berth.api.v1beta1.LocalQueueStatus());
    lq.getStatus().fairSharing = new dev.berth.api.v1beta1.FairSharingStatus();
    var afs = new dev.berth.api.v1beta1.AdmissionFairSharingStatus();
    afs.consumedResources =
        java.util.Map.of(
            "cpu", new io.fabric8.kubernetes.api.model.Quantity("2500m"),
            "nvidia.com/gpu", new io.fabric8.kubernetes.api.model.Quantity("0.002750111"));
    afs.lastUpdate = "2026-12-07T15:10:40.123Z";
    lq.getStatus().fairSharing.admissionFairSharingStatus = afs;

    var stored = ModelTranslator.localQueueUsage(lq).orElseThrow();

    assertThat(stored.consumed().get("cpu")).isEqualByComparingTo("2.5");
    assertThat(stored.consumed().get("nvidia.com/gpu")).isEqualByComparingTo("0.002750111");
    assertThat(stored.lastUpdate())
        .isEqualTo(Instant.parse("2026-12-07T15:10:40.123Z").toEpochMilli());
  }

  @Test
  void aWorkloadQueuesByCreationUntilRequeued() {
    Workloads train =
        Workloads.named("train")
            .in("team")
            .uid("uid-1")
            .created("2026-01-01T00:00:00Z")
            .queue("q")
            .priority(7)
            .podSet("main", 3)
            .request("cpu", "250m")
            .request("nvidia.com/gpu", "2");

    var model = ModelTranslator.workload(train.build());
    assertThat(model.queueTimestamp())
        .isEqualTo(Instant.parse("2026-01-01T00:00:00Z").toEpochMilli());
    assertThat(model.priority()).isEqualTo(7);
    assertThat(model.podSets().get(0).requests())
        .containsEntry("cpu", 250L)
        .containsEntry("nvidia.com/gpu", 2L);

    // The same Workload, back in line after a preemption.
    Workload requeued =
        train.condition("Requeued", true, "Preempted", "2026-01-01T01:00:00Z").build();
    assertThat(ModelTranslator.workload(requeued).queueTimestamp())
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
    Workload wl =
        Workloads.named("train")
            .created("2026-01-01T00:00:00Z")
            .condition("Requeued", true, "PodsReadyTimeout", "2026-01-01T01:00:00Z")
            .build();
    Condition requeued = wl.getStatus().conditions.get(0);
    long created = Instant.parse("2026-01-01T00:00:00Z").toEpochMilli();
    long evicted = Instant.parse("2026-01-01T01:00:00Z").toEpochMilli();
    assertThat(ModelTranslator.queueTimestamp(wl, false)).isEqualTo(evicted);
    assertThat(ModelTranslator.queueTimestamp(wl, true)).isEqualTo(created);
    // Other requeues (a preemption) go by their requeue under either strategy.
    requeued.reason = "Preempted";
    assertThat(ModelTranslator.queueTimestamp(wl, true)).isEqualTo(evicted);
  }
}
