package dev.berth.operator.admission;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.api.v1beta1.Berth;
import dev.berth.engine.AdmissionEngine;
import dev.berth.engine.topology.Topology;
import dev.berth.engine.topology.TopologyNode;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TopologyTranslatorTest {
  private static Node node(String ready, boolean cordoned) {
    return new NodeBuilder()
        .withNewMetadata()
        .withName("n1")
        .addToLabels(Map.of("rack", "r1", "kubernetes.io/hostname", "n1"))
        .endMetadata()
        .withNewSpec()
        .withUnschedulable(cordoned)
        .addNewTaint()
        .withKey("gpu")
        .withValue("true")
        .withEffect("NoSchedule")
        .endTaint()
        .endSpec()
        .withNewStatus()
        .addToAllocatable("nvidia.com/gpu", new Quantity("8"))
        .addToAllocatable("cpu", new Quantity("95500m"))
        .addToAllocatable("memory", new Quantity("1Ti"))
        .addNewCondition()
        .withType("MemoryPressure")
        .withStatus("False")
        .endCondition()
        .addNewCondition()
        .withType("Ready")
        .withStatus(ready)
        .endCondition()
        .endStatus()
        .build();
  }

  @Test
  void aNodeKeepsWhatPlacementNeeds() {
    TopologyNode n = TopologyTranslator.node(node("True", false));
    assertThat(n.name()).isEqualTo("n1");
    assertThat(n.labels()).containsEntry("rack", "r1");
    assertThat(n.allocatable())
        .containsEntry("nvidia.com/gpu", 8L)
        .containsEntry("cpu", 95_500L)
        .containsEntry("memory", 1L << 40);
    assertThat(n.ready()).isTrue();
    assertThat(n.unschedulable()).isFalse();
    assertThat(n.taints()).hasSize(1);
    assertThat(TopologyTranslator.node(node("Unknown", false)).ready()).isFalse();
    assertThat(TopologyTranslator.node(node("True", true)).unschedulable()).isTrue();
  }

  @Test
  void aHeartbeatDoesNotChangeTheNode() {
    Node beat = node("True", false);
    beat.getStatus().getConditions().get(1).setLastHeartbeatTime("2026-11-29T10:00:00Z");
    assertThat(TopologyTranslator.node(beat))
        .isEqualTo(TopologyTranslator.node(node("True", false)));
  }

  @Test
  void onlyBoundRunningPodsOutsideAPlacementTakeCapacity() {
    Pod bound =
        new PodBuilder()
            .withNewMetadata()
            .withName("p")
            .withUid("u")
            .endMetadata()
            .withNewSpec()
            .withNodeName("n1")
            .addNewContainer()
            .withName("c")
            .withNewResources()
            .addToRequests("nvidia.com/gpu", new Quantity("2"))
            .endResources()
            .endContainer()
            .endSpec()
            .build();
    assertThat(TopologyTranslator.boundRequests(bound)).containsEntry("nvidia.com/gpu", 2L);

    Pod unbound = new PodBuilder(bound).editSpec().withNodeName(null).endSpec().build();
    assertThat(TopologyTranslator.boundRequests(unbound)).isNull();
    Pod done = new PodBuilder(bound).withNewStatus().withPhase("Succeeded").endStatus().build();
    assertThat(TopologyTranslator.boundRequests(done)).isNull();
    Pod placed =
        new PodBuilder(bound)
            .editMetadata()
            .addToLabels(Berth.PODSET_LABEL, "main")
            .endMetadata()
            .build();
    assertThat(TopologyTranslator.boundRequests(placed)).as("counted by its placement").isNull();
  }

  @Test
  void translatedNodesFormTheFlavorsInventory() {
    AdmissionEngine engine = new AdmissionEngine();
    engine.upsertTopology(Topology.of("dc", "rack", "kubernetes.io/hostname"));
    engine.upsertResourceFlavor(
        new dev.berth.engine.model.ResourceFlavor(
            "h100",
            Map.of("rack", "r1"),
            List.of(
                new dev.berth.engine.model.Taint(
                    "gpu", "true", dev.berth.engine.model.TaintEffect.NoSchedule)),
            List.of(),
            "dc"));
    engine.upsertNode(TopologyTranslator.node(node("True", false)));
    assertThat(engine.topologyInventories().get("h100").freeOf(List.of("r1")))
        .containsEntry("nvidia.com/gpu", 8L);
  }

  @Test
  void aPlacementIsSummedUpByTheNarrowestDomainHoldingAllItsPods() {
    var levels = List.of("block", "rack", "kubernetes.io/hostname");
    var oneRack =
        new dev.berth.engine.topology.TopologyAssignment(
            levels,
            List.of(
                new dev.berth.engine.topology.TopologyAssignment.Domain(
                    List.of("b1", "r2", "n1"), 1),
                new dev.berth.engine.topology.TopologyAssignment.Domain(
                    List.of("b1", "r2", "n2"), 1)));
    assertThat(TopologyTranslator.summary("main", oneRack))
        .isEqualTo("podSet main: 2 pods in rack r2 over 2 kubernetes.io/hostname domain(s)");
    var twoBlocks =
        new dev.berth.engine.topology.TopologyAssignment(
            levels,
            List.of(
                new dev.berth.engine.topology.TopologyAssignment.Domain(
                    List.of("b1", "r2", "n1"), 3),
                new dev.berth.engine.topology.TopologyAssignment.Domain(
                    List.of("b2", "r1", "n9"), 1)));
    assertThat(TopologyTranslator.summary("workers", twoBlocks))
        .isEqualTo(
            "podSet workers: 4 pods across block domains over 2 kubernetes.io/hostname domain(s)");
    var roundTrip = TopologyTranslator.fromApi(TopologyTranslator.toApi(twoBlocks));
    assertThat(roundTrip).isEqualTo(twoBlocks);
  }
}
