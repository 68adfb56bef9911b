package dev.berth.operator.integration.pod;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.api.v1beta1.Admission;
import dev.berth.api.v1beta1.Berth;
import dev.berth.api.v1beta1.PodSet;
import dev.berth.api.v1beta1.PodSetAssignment;
import dev.berth.api.v1beta1.Workload;
import dev.berth.api.v1beta1.WorkloadSpec;
import dev.berth.api.v1beta1.WorkloadStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A pod group whose pods have roles (a LeaderWorkerSet's replica group: a leader and its workers)
 * is a podSet per role, and starts under its Workload only what each podSet was admitted for.
 */
class PodGroupRolesTest {
  private static final String RACK = "topology.berth.dev/rack";

  /** Pod {@code name} of role {@code role} asking {@code gpus} GPUs, created at {@code second}. */
  private static PodBuilder pod(String name, String role, int gpus, int second) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace("team")
        .withUid("uid-" + name)
        .withCreationTimestamp("2026-01-01T00:00:%02dZ".formatted(second))
        .addToLabels(Berth.QUEUE_NAME_LABEL, "lq")
        .addToLabels(Berth.MANAGED_LABEL, "true")
        .addToLabels(Berth.POD_GROUP_NAME_LABEL, "leaderworkerset-serve-0")
        .addToAnnotations(Berth.POD_GROUP_TOTAL_COUNT_ANNOTATION, "3")
        .addToAnnotations(Berth.POD_GROUP_ROLE_ANNOTATION, role)
        .addToAnnotations(Berth.PODSET_REQUIRED_TOPOLOGY, RACK)
        .endMetadata()
        .withNewSpec()
        .addNewSchedulingGate(Berth.ADMISSION_SCHEDULING_GATE)
        .addNewContainer()
        .withName("c")
        .withNewResources()
        .addToLimits("nvidia.com/gpu", new Quantity(Integer.toString(gpus)))
        .endResources()
        .endContainer()
        .endSpec();
  }

  private static PodGroup group(Pod... pods) {
    PodGroup.Result result = PodGroup.of("team", "leaderworkerset-serve-0", List.of(pods));
    assertThat(result.problem()).isNull();
    return result.group();
  }

  /** The group's Workload admitted, every podSet in rack r1 (as many slots as its count). */
  private static Workload admitted(PodGroup group) {
    Workload workload = new Workload();
    workload.getMetadata().setName(group.name());
    workload.getMetadata().setUid("wl-uid");
    workload.setSpec(new WorkloadSpec());
    workload.getSpec().podSets = group.podSets();
    workload.setStatus(new WorkloadStatus());
    workload.getStatus().admission = new Admission();
    workload.getStatus().admission.clusterQueue = "cq";
    workload.getStatus().admission.podSetAssignments =
        workload.getSpec().podSets.stream()
            .map(
                ps -> {
                  PodSetAssignment a = new PodSetAssignment();
                  a.name = ps.name;
                  a.count = ps.count;
                  a.flavors = Map.of("nvidia.com/gpu", "h100");
                  a.topologyAssignment = new PodSetAssignment.TopologyAssignment();
                  a.topologyAssignment.levels = List.of(RACK);
                  PodSetAssignment.TopologyAssignment.Domain domain =
                      new PodSetAssignment.TopologyAssignment.Domain();
                  domain.values = List.of("r1");
                  domain.count = ps.count;
                  a.topologyAssignment.domains = List.of(domain);
                  return a;
                })
            .toList();
    return workload;
  }

  @Test
  void aLeaderAndItsWorkersAreAPodSetEachPlacedAsTheirTemplatesAsk() {
    PodGroup group =
        group(
            pod("serve-0-1", "worker", 2, 2).build(),
            pod("serve-0", "leader", 1, 1).build(),
            pod("serve-0-2", "worker", 2, 3).build());
    List<PodSet> podSets = group.podSets();
    assertThat(podSets)
        .extracting(p -> p.name + "=" + p.count)
        .containsExactly("leader=1", "worker=2");
    assertThat(podSets).allSatisfy(p -> assertThat(p.topologyRequest.required).isEqualTo(RACK));
    assertThat(podSets.get(1).template.getSpec().getContainers().get(0).getResources().getLimits())
        .containsEntry("nvidia.com/gpu", new Quantity("2"));
  }

  @Test
  void eachMemberStartsInItsRolesPodSetAndDomain() {
    PodGroup group =
        group(
            pod("serve-0", "leader", 1, 1).build(),
            pod("serve-0-1", "worker", 2, 2).build(),
            pod("serve-0-2", "worker", 2, 3).build());
    List<PodGroup.Release> releases = group.releases(admitted(group));
    assertThat(releases)
        .extracting(r -> r.pod().getMetadata().getName() + ":" + r.podSet() + ":" + r.domain())
        .containsExactly(
            "serve-0:leader:{" + RACK + "=r1}",
            "serve-0-1:worker:{" + RACK + "=r1}",
            "serve-0-2:worker:{" + RACK + "=r1}");
    Pod released =
        PodAdapter.released(
            releases.get(1).pod(),
            admitted(group),
            dev.berth.operator.integration.FixedFlavors.NONE,
            "worker",
            releases.get(1).domain());
    assertThat(released.getSpec().getNodeSelector()).containsEntry(RACK, "r1");
    assertThat(released.getSpec().getSchedulingGates()).isNull();
  }

  @Test
  void aReplacementAskingForMoreThanItsPodSetStaysGated() {
    // A worker made from a changed template: 8 GPUs where its podSet was admitted for 2.
    assertStaysGated(pod("serve-0-2b", "worker", 8, 4).build());
  }

  @Test
  void aMemberNamingOtherClaimsThanItsPodSetStaysGated() {
    // Same container requests, one more ResourceClaimTemplate: devices its podSet was not charged.
    assertStaysGated(
        pod("serve-0-2b", "worker", 2, 4)
            .editSpec()
            .addNewResourceClaim()
            .withName("gpus")
            .withResourceClaimTemplateName("two-gpus")
            .endResourceClaim()
            .endSpec()
            .build());
  }

  /**
   * A group of a leader and two workers admitted, then {@code replacement} (serve-0-2b) in the
   * second worker's place: the leader and first worker start, the replacement stays gated.
   */
  private static void assertStaysGated(Pod replacement) {
    PodGroup first =
        group(
            pod("serve-0", "leader", 1, 1).build(),
            pod("serve-0-1", "worker", 2, 2).build(),
            pod("serve-0-2", "worker", 2, 3).build());
    Workload workload = admitted(first);
    PodGroup replaced =
        group(
            pod("serve-0", "leader", 1, 1).build(),
            pod("serve-0-1", "worker", 2, 2).build(),
            replacement);
    assertThat(replaced.releases(workload))
        .extracting(r -> r.pod().getMetadata().getName())
        .containsExactly("serve-0", "serve-0-1");
    assertThat(replaced.unfitting(workload))
        .extracting(p -> p.getMetadata().getName())
        .containsExactly("serve-0-2b");
  }

  @Test
  void noPodSetStartsMoreMembersThanItsCount() {
    PodGroup group =
        group(
            pod("serve-0", "leader", 1, 1).build(),
            pod("serve-0-1", "worker", 2, 2).build(),
            pod("serve-0-2", "worker", 2, 3).build());
    Workload workload = admitted(group);
    // A worker claiming to be a second leader (same requests): the leader podSet has one slot.
    PodGroup twoLeaders =
        group(
            pod("serve-0", "leader", 1, 1).build(),
            pod("impostor", "leader", 1, 2).build(),
            pod("serve-0-2", "worker", 2, 3).build());
    assertThat(twoLeaders.releases(workload))
        .extracting(r -> r.pod().getMetadata().getName())
        .containsExactly("serve-0", "serve-0-2");
  }
}
