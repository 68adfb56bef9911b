package dev.berth.operator.admission;

import static dev.berth.testing.Quota.cpu;
import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.engine.Admission;
import dev.berth.engine.AdmissionEngine;
import dev.berth.engine.CycleResult;
import dev.berth.testing.ClusterQueues;
import dev.berth.testing.LocalQueues;
import dev.berth.testing.ResourceFlavors;
import dev.berth.testing.Workloads;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What the loop's state does with ordinary observations: which workloads it feeds the engine as
 * pending, which as admitted, which it takes out (finished, deactivated, deleted, backing off), and
 * which API objects it keeps as the latest. Real API model objects, no API server (ClusterState
 * does no I/O). The fault paths are {@link ClusterStateFaultsTest}'s.
 */
class ClusterStateTest {
  private static final String T0 = "2026-01-01T00:00:00Z";
  private static final String T1 = "2026-01-01T01:00:00Z";

  private final ClusterState state = new ClusterState(new AdmissionEngine());
  private int rv = 1;

  /** Flavor "default"; ClusterQueue "cq" with 4 cpu for every namespace; LocalQueue team/lq. */
  ClusterStateTest() {
    state.bootstrapped();
    state.flavor(ResourceFlavors.named("default").build());
    state.clusterQueue(ClusterQueues.named("cq").flavor("default", cpu("4")).build());
    state.namespace("team", Map.of());
    state.localQueue(LocalQueues.named("lq").in("team").clusterQueue("cq").build());
  }

  /** The next version of Workload {@code name}: one pod of {@code cpu} in team/lq. */
  private Workloads workload(String name, String cpu) {
    return Workloads.named(name)
        .in("team")
        .uid(name)
        .resourceVersion(String.valueOf(rv++))
        .created(T0)
        .queue("lq")
        .request("cpu", cpu);
  }

  private List<String> cycle() {
    CycleResult result = state.engine().runCycle(Instant.parse(T1).toEpochMilli());
    return result.admissions().stream().map(Admission::name).toList();
  }

  @Test
  void aPendingWorkloadIsFedToTheEngineAndKeptAsTheLatestVersion() {
    var wl = workload("train", "1").build();
    state.workload(wl);

    assertThat(state.engine().isPending("train")).isTrue();
    assertThat(state.latestWorkload("train")).containsSame(wl);
    assertThat(cycle()).containsExactly("train");
  }

  @Test
  void anOlderVersionArrivingLateIsIgnored() {
    var older = workload("train", "1").build();
    var newer = workload("train", "1").active(false).build();
    state.workload(newer);
    state.workload(older);

    assertThat(state.latestWorkload("train")).containsSame(newer);
    assertThat(state.engine().isPending("train")).as("still deactivated").isFalse();
    assertThat(cycle()).isEmpty();
  }

  @Test
  void anAdmittedWorkloadHoldsItsQuotaUntilItFinishes() {
    state.workload(workload("running", "3").reserved("cq", "default", T0).build());
    state.workload(workload("waiting", "2").build());
    assertThat(state.engine().admission("running")).isPresent();
    assertThat(cycle()).as("3 of 4 cpu are reserved").isEmpty();

    state.workload(
        workload("running", "3").reserved("cq", "default", T0).finished("Succeeded", T1).build());

    assertThat(state.engine().admission("running")).isEmpty();
    assertThat(cycle()).containsExactly("waiting");
  }

  @Test
  void aDeletedWorkloadGivesItsQuotaBack() {
    state.workload(workload("running", "3").reserved("cq", "default", T0).build());
    state.workload(workload("waiting", "2").build());
    assertThat(cycle()).isEmpty();

    state.workloadDeleted("running");

    assertThat(state.latestWorkload("running")).isEmpty();
    assertThat(cycle()).containsExactly("waiting");
  }

  @Test
  void deactivatedWhileHoldingQuotaIsEvictedOnceAndKeepsItsQuotaUntilThen() {
    state.workload(workload("running", "3").reserved("cq", "default", T0).build());
    state.workload(workload("running", "3").reserved("cq", "default", T0).active(false).build());

    assertThat(state.takeDeactivated()).containsExactly("running");
    assertThat(state.takeDeactivated()).as("asked once").isEmpty();
    assertThat(state.engine().admission("running")).as("until its pods stop").isPresent();
  }

  @Test
  void deactivatedWhilePendingLeavesTheQueue() {
    state.workload(workload("train", "1").build());
    state.workload(workload("train", "1").active(false).build());

    assertThat(state.engine().isPending("train")).isFalse();
    assertThat(state.takeDeactivated()).as("nothing to evict").isEmpty();
    assertThat(cycle()).isEmpty();
  }

  @Test
  void aRequeuedWorkloadWaitsOutItsBackoffThenQueuesAgain() {
    long requeueAt = System.currentTimeMillis() + 3_600_000;
    state.workload(
        workload("backoff", "1")
            .condition("Requeued", true, "PodsReadyTimeout", T0)
            .requeueState(1, Instant.ofEpochMilli(requeueAt).toString())
            .build());

    assertThat(state.isBackingOff("backoff")).isTrue();
    assertThat(state.engine().isPending("backoff")).isFalse();
    assertThat(state.releaseDue(requeueAt - 1))
        .as("wakes the loop at requeueAt")
        .hasValue(requeueAt);
    assertThat(state.engine().isPending("backoff")).isFalse();

    state.releaseDue(requeueAt);

    assertThat(state.isBackingOff("backoff")).isFalse();
    assertThat(cycle()).containsExactly("backoff");
  }

  @Test
  void maximumExecutionTimeIsADeadlineFromAdmissionUntilEviction() {
    long admittedAt = Instant.parse(T0).toEpochMilli();
    state.workload(
        workload("bounded", "1")
            .maximumExecutionTimeSeconds(600)
            .reserved("cq", "default", T0)
            .build());
    assertThat(state.executionDeadlines()).as("its checks are not all Ready yet").isEmpty();
    state.workload(
        workload("bounded", "1")
            .maximumExecutionTimeSeconds(600)
            .admitted("cq", "default", T0)
            .build());
    assertThat(state.executionDeadlines()).containsEntry("bounded", admittedAt + 600_000);
    assertThat(state.takeOutOfTime(admittedAt + 599_999)).isEmpty();
    assertThat(state.takeOutOfTime(admittedAt + 600_000)).containsExactly("bounded");
    assertThat(state.takeOutOfTime(admittedAt + 700_000)).as("taken once").isEmpty();

    state.workload(
        workload("bounded", "1")
            .maximumExecutionTimeSeconds(600)
            .admitted("cq", "default", T0)
            .evicted("MaximumExecutionTimeExceeded", T1)
            .build());
    assertThat(state.executionDeadlines()).as("evicted: no deadline").isEmpty();
    // A deactivation for the time limit whose write failed asks again.
    state.outOfTimeAgain("bounded");
    assertThat(state.executionDeadlines()).containsKey("bounded");
    state.workloadDeleted("bounded");
    assertThat(state.executionDeadlines()).isEmpty();
  }

  @Test
  void aPendingWorkloadsExecutionBudgetIsWhatItHasLeft() {
    var wl = workload("bounded", "1").maximumExecutionTimeSeconds(600).build();
    state.workload(wl);
    assertThat(state.executionBudgets()).containsEntry("bounded", 600_000L);
  }

  @Test
  void withoutItsLocalQueueAWorkloadIsNotAdmitted() {
    state.localQueueDeleted("team", "lq");
    state.workload(workload("orphan", "1").build());

    assertThat(state.localQueues()).isEmpty();
    assertThat(cycle()).isEmpty();

    state.localQueue(LocalQueues.named("lq").in("team").clusterQueue("cq").build());
    assertThat(cycle()).containsExactly("orphan");
  }

  @Test
  void statusRepliesReplaceOnlyObjectsAlreadyKnown() {
    state.clusterQueueWritten(ClusterQueues.named("unknown").build());
    state.localQueueWritten(LocalQueues.named("unknown").in("team").build());

    assertThat(state.clusterQueues())
        .extracting(cq -> cq.getMetadata().getName())
        .containsExactly("cq");
    assertThat(state.localQueues())
        .extracting(lq -> lq.getMetadata().getName())
        .containsExactly("lq");
  }

  @Test
  void aDeletedFlavorIsForgotten() {
    assertThat(state.latestFlavor("default")).isPresent();
    state.flavorDeleted("default");
    assertThat(state.latestFlavor("default")).isEmpty();
    assertThat(state.flavors()).isEmpty();
  }

  @Test
  void aDeletedClusterQueueAdmitsNothing() {
    state.clusterQueueDeleted("cq");
    state.workload(workload("train", "1").build());

    assertThat(state.clusterQueues()).isEmpty();
    assertThat(cycle()).isEmpty();
  }

  @Test
  void theReplyOfItsOwnWriteIsKeptWithoutManagedFields() {
    var written = workload("train", "1").build();
    written
        .getMetadata()
        .setManagedFields(
            List.of(
                new io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder()
                    .withManager("berth")
                    .withOperation("Update")
                    .withSubresource("status")
                    .build()));
    String spec = io.fabric8.kubernetes.client.utils.Serialization.asJson(written.getSpec());

    state.workloadWritten(written);

    var kept = state.latestWorkload("train").orElseThrow();
    assertThat(kept.getMetadata().getManagedFields()).isNull();
    assertThat(io.fabric8.kubernetes.client.utils.Serialization.asJson(kept.getSpec()))
        .isEqualTo(spec);
    assertThat(state.engine().isPending("train")).isTrue();
  }
}
