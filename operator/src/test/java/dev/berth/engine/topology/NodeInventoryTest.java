package dev.berth.engine.topology;

import static dev.berth.engine.topology.Cluster.BLOCK;
import static dev.berth.engine.topology.Cluster.GPU;
import static dev.berth.engine.topology.Cluster.HOST;
import static dev.berth.engine.topology.Cluster.RACK;
import static dev.berth.engine.topology.Cluster.grid;
import static dev.berth.engine.topology.Cluster.render;
import static dev.berth.engine.topology.TopologyRequest.required;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Free capacity kept per domain as placements and bound pods come and go; the fragmentation report.
 */
class NodeInventoryTest {
  private final TopologyPlacer placer = new TopologyPlacer();

  @Test
  void admittedPlacementTakesCapacityAndGivesItBack() {
    NodeInventory inventory = grid(1, 2, 2, 8).inventory();
    Map<String, Long> pod = Map.of(GPU, 8L);
    Placement first = placer.place(inventory, 2, pod, required(RACK));
    assertThat(render(first)).isEqualTo("b1/r1/b1-r1-n1=1 b1/r1/b1-r1-n2=1");

    inventory.addPlacement(first.assignment(), pod);
    assertThat(inventory.freeOf(List.of("b1", "r1"))).containsEntry(GPU, 0L);
    assertThat(inventory.freeOf(List.of("b1"))).containsEntry(GPU, 16L);
    assertThat(inventory.freeOf(List.of())).containsEntry(GPU, 16L);
    assertThat(render(placer.place(inventory, 2, pod, required(RACK))))
        .isEqualTo("b1/r2/b1-r2-n1=1 b1/r2/b1-r2-n2=1");

    inventory.removePlacement(first.assignment(), pod);
    assertThat(inventory.freeOf(List.of("b1"))).containsEntry(GPU, 32L);
  }

  @Test
  void boundPodsComeAndGoAfterBuild() {
    NodeInventory inventory = grid(1, 1, 2, 8).inventory();
    inventory.addBoundPod("b1-r1-n1", null, Map.of(GPU, 3L, "cpu", 500L));
    assertThat(inventory.freeOf(List.of("b1", "r1", "b1-r1-n1")))
        .containsEntry(GPU, 5L)
        .containsEntry("cpu", 63_500L);
    inventory.addBoundPod("elsewhere", null, Map.of(GPU, 3L)); // not an eligible node: ignored
    inventory.removeBoundPod("b1-r1-n1", null, Map.of(GPU, 3L, "cpu", 500L));
    assertThat(inventory.freeOf(List.of("b1")))
        .containsEntry(GPU, 16L)
        .containsEntry("cpu", 128_000L);
  }

  @Test
  void fragmentationReportShowsFreeCapacityAndLargestGangPerLevel() {
    NodeInventory inventory =
        grid(2, 2, 2, 8).used("b1-r1-n1", 4).used("b1-r1-n2", 4).used("b2-r1-n1", 8).inventory();
    FragmentationReport report = FragmentationReport.of(inventory, Map.of(GPU, 8L));

    assertThat(report.largestGang(HOST)).isEqualTo(1);
    assertThat(report.largestGang(RACK)).isEqualTo(2);
    assertThat(report.largestGang(BLOCK)).isEqualTo(3); // b2; b1 has 24 GPUs free but fits 2
    FragmentationReport.LevelReport racks = report.levels().get(1);
    assertThat(racks.domains())
        .extracting(
            d ->
                String.join("/", d.values())
                    + " free "
                    + d.free().get(GPU)
                    + " fits "
                    + d.podsThatFit())
        .containsExactly(
            "b1/r1 free 8 fits 0",
            "b1/r2 free 16 fits 2",
            "b2/r1 free 8 fits 1",
            "b2/r2 free 16 fits 2");
  }

  @Test
  void assignmentCarriesEveryLevel() {
    Placement p = placer.place(grid(1, 1, 1, 8).inventory(), 1, Map.of(GPU, 1L), required(HOST));
    assertThat(p.assignment().levels()).containsExactly(BLOCK, RACK, HOST);
    assertThat(p.assignment().domains())
        .containsExactly(new TopologyAssignment.Domain(List.of("b1", "r1", "b1-r1-n1"), 1));
  }
}
