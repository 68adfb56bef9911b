package dev.berth.engine.topology;

import static dev.berth.engine.topology.Cluster.BLOCK;
import static dev.berth.engine.topology.Cluster.BLOCK_RACK_HOST;
import static dev.berth.engine.topology.Cluster.GPU;
import static dev.berth.engine.topology.Cluster.HOST;
import static dev.berth.engine.topology.Cluster.NUMA;
import static dev.berth.engine.topology.Cluster.RACK;
import static dev.berth.engine.topology.Cluster.gpuNode;
import static dev.berth.engine.topology.Cluster.grid;
import static dev.berth.engine.topology.Cluster.render;
import static dev.berth.engine.topology.TopologyRequest.preferred;
import static dev.berth.engine.topology.TopologyRequest.required;
import static dev.berth.engine.topology.TopologyRequest.unconstrained;
import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.engine.model.Taint;
import dev.berth.engine.model.TaintEffect;
import dev.berth.engine.model.Toleration;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Placement table: each case a cluster, a podSet (count × per-pod request), a mode, the result. */
class TopologyPlacerTest {
  private static final Topology NUMA_TOPOLOGY = BLOCK_RACK_HOST.withSubNodeLevel(NUMA);
  private static final Taint MAINTENANCE =
      new Taint("gpu-maintenance", "true", TaintEffect.NoSchedule);

  record Case(
      String name,
      Supplier<Cluster> cluster,
      int count,
      Map<String, Long> perPod,
      TopologyRequest request,
      String expected) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static Case when(
      String name,
      Supplier<Cluster> cluster,
      int count,
      Map<String, Long> perPod,
      TopologyRequest request,
      String expected) {
    return new Case(name, cluster, count, perPod, request, expected);
  }

  private static Map<String, Long> gpus(long n) {
    return Map.of(GPU, n);
  }

  /** An 8-GPU node of two NUMA domains of 4 GPUs and 32 cpu each. */
  private static TopologyNode.Builder numaNode(String name) {
    return TopologyNode.named(name)
        .label(BLOCK, "b1")
        .label(RACK, "r1")
        .subDomain("numa0", Map.of(GPU, 4L, "cpu", 32_000L))
        .subDomain("numa1", Map.of(GPU, 4L, "cpu", 32_000L));
  }

  private static Cluster twoNodeRack() {
    return grid(1, 1, 2, 8);
  }

  private static final String B1 =
      "b1/r1/b1-r1-n1=1 b1/r1/b1-r1-n2=1 b1/r2/b1-r2-n1=1 b1/r2/b1-r2-n2=1";
  private static final String RACK_FITS_ONE =
      "FAIL: needs 2 pods of nvidia.com/gpu 8 in one topology.berth.dev/rack; the largest rack fits 1 pod"
          + " (rack r1 in block b1)";

  static Stream<Case> cases() {
    return Stream.of(
        // required
        when(
            "required host: one 8-GPU pod goes to the first whole node",
            () -> grid(2, 2, 2, 8),
            1,
            gpus(8),
            required(HOST),
            "b1/r1/b1-r1-n1=1"),
        when(
            "required rack: two 8-GPU pods share one rack",
            () -> grid(2, 2, 2, 8),
            2,
            gpus(8),
            required(RACK),
            "b1/r1/b1-r1-n1=1 b1/r1/b1-r1-n2=1"),
        when(
            "required rack: three 8-GPU pods fail, naming the largest rack",
            () -> grid(2, 2, 2, 8),
            3,
            gpus(8),
            required(RACK),
            "FAIL: needs 3 pods of nvidia.com/gpu 8 in one topology.berth.dev/rack; the largest rack fits 2 pods"
                + " (rack r1 in block b1)"),
        when(
            "required block: four 8-GPU pods fill one block",
            () -> grid(2, 2, 2, 8),
            4,
            gpus(8),
            required(BLOCK),
            B1),
        when(
            "required block best-fits the partly used block",
            () -> grid(2, 2, 2, 8).used("b2-r1-n1", 8),
            3,
            gpus(8),
            required(BLOCK),
            "b2/r1/b2-r1-n2=1 b2/r2/b2-r2-n1=1 b2/r2/b2-r2-n2=1"),
        when(
            "required rack best-fits 4-GPU pods into the partly used rack",
            () -> grid(2, 2, 2, 8).used("b2-r2-n2", 4),
            3,
            gpus(4),
            required(RACK),
            "b2/r2/b2-r2-n1=2 b2/r2/b2-r2-n2=1"),
        when(
            "required host best-fits the fullest node that still fits",
            () -> grid(2, 2, 2, 8).used("b1-r2-n2", 4).used("b2-r1-n1", 6),
            1,
            gpus(2),
            required(HOST),
            "b2/r1/b2-r1-n1=1"),
        when(
            "required rack with the largest rack in another block",
            () ->
                grid(2, 2, 2, 8)
                    .used("b1-r1-n1", 8)
                    .used("b1-r2-n1", 8)
                    .used("b2-r1-n1", 8)
                    .used("b2-r2-n1", 2),
            2,
            gpus(8),
            required(RACK),
            "FAIL: needs 2 pods of nvidia.com/gpu 8 in one topology.berth.dev/rack; the largest rack fits 1 pod"
                + " (rack r1 in block b1)"),
        // preferred
        when(
            "preferred rack stays in one rack when it can",
            () -> grid(2, 2, 2, 8),
            2,
            gpus(8),
            preferred(RACK),
            "b1/r1/b1-r1-n1=1 b1/r1/b1-r1-n2=1"),
        when(
            "preferred rack falls back to one block",
            () -> grid(2, 2, 2, 8),
            3,
            gpus(8),
            preferred(RACK),
            "b1/r1/b1-r1-n1=1 b1/r1/b1-r1-n2=1 b1/r2/b1-r2-n1=1"),
        when(
            "preferred rack spreads over the fewest blocks",
            () -> grid(2, 2, 2, 8),
            6,
            gpus(8),
            preferred(RACK),
            B1 + " b2/r1/b2-r1-n1=1 b2/r1/b2-r1-n2=1"),
        when(
            "preferred fails with what the whole topology fits",
            () -> grid(2, 2, 2, 8),
            9,
            gpus(8),
            preferred(RACK),
            "FAIL: needs 9 pods of nvidia.com/gpu 8 (preferred in one topology.berth.dev/rack); the whole"
                + " topology fits 8 pods"),
        // unconstrained
        when(
            "unconstrained fills the fewest nodes",
            () -> grid(2, 2, 2, 8),
            4,
            gpus(4),
            unconstrained(),
            "b1/r1/b1-r1-n1=2 b1/r1/b1-r1-n2=2"),
        when(
            "unconstrained best-fits the partly used node",
            () -> grid(2, 2, 2, 8).used("b1-r1-n2", 4),
            1,
            gpus(4),
            unconstrained(),
            "b1/r1/b1-r1-n2=1"),
        when(
            "unconstrained fails on a resource no node has",
            () -> grid(2, 2, 2, 8),
            1,
            Map.of("example.com/fpga", 1L),
            unconstrained(),
            "FAIL: needs 1 pod of example.com/fpga 1; the whole topology fits 0 pods"),
        // slices
        when(
            "slices of 2 per host inside one rack",
            () -> grid(2, 2, 2, 8),
            4,
            gpus(4),
            required(RACK).inSlices(2, HOST),
            "b1/r1/b1-r1-n1=2 b1/r1/b1-r1-n2=2"),
        when(
            "slices fail when pods fit but no host holds a whole slice",
            () -> twoNodeRack().used("b1-r1-n1", 4).used("b1-r1-n2", 4),
            2,
            gpus(4),
            required(RACK).inSlices(2, HOST),
            "FAIL: needs 1 slice of 2 pods of nvidia.com/gpu 4 (each slice in one kubernetes.io/hostname) in one"
                + " topology.berth.dev/rack; the largest rack fits 0 slices (rack r1 in block b1)"),
        when(
            "the same pods without slices fit the rack",
            () -> twoNodeRack().used("b1-r1-n1", 4).used("b1-r1-n2", 4),
            2,
            gpus(4),
            required(RACK),
            "b1/r1/b1-r1-n1=1 b1/r1/b1-r1-n2=1"),
        when(
            "slices of one rack each skip the block whose racks are broken",
            () -> grid(2, 2, 2, 8).used("b1-r1-n1", 8),
            4,
            gpus(8),
            required(BLOCK).inSlices(2, RACK),
            "b2/r1/b2-r1-n1=1 b2/r1/b2-r1-n2=1 b2/r2/b2-r2-n1=1 b2/r2/b2-r2-n2=1"),
        when(
            "preferred block in slices of a rack spreads whole slices over blocks",
            () -> grid(2, 2, 2, 8).used("b1-r1-n1", 8),
            4,
            gpus(8),
            preferred(BLOCK).inSlices(2, RACK),
            "b2/r1/b2-r1-n1=1 b2/r1/b2-r1-n2=1 b2/r2/b2-r2-n1=1 b2/r2/b2-r2-n2=1"),
        when(
            "slice size must divide the podSet",
            () -> grid(2, 2, 2, 8),
            5,
            gpus(8),
            required(BLOCK).inSlices(2, RACK),
            "FAIL: 5 pods cannot be cut into slices of 2"),
        when(
            "a slice level above the podSet level is rejected",
            () -> grid(2, 2, 2, 8),
            4,
            gpus(8),
            required(RACK).inSlices(2, BLOCK),
            "FAIL: slice level topology.berth.dev/block is above the podSet level topology.berth.dev/rack"),
        when(
            "an unknown level is rejected",
            () -> grid(2, 2, 2, 8),
            1,
            gpus(8),
            required("topology.berth.dev/zone"),
            "FAIL: level topology.berth.dev/zone is not a level of topology default [topology.berth.dev/block,"
                + " topology.berth.dev/rack, kubernetes.io/hostname]"),
        // NUMA below the host
        when(
            "NUMA: 2+2 free GPUs cannot serve a 4-GPU pod that needs one NUMA domain",
            () ->
                Cluster.empty()
                    .topology(NUMA_TOPOLOGY)
                    .node(numaNode("gpu-1"))
                    .used("gpu-1", "numa0", gpus(2))
                    .used("gpu-1", "numa1", gpus(2)),
            1,
            gpus(4),
            required(NUMA),
            "FAIL: needs 1 pod of nvidia.com/gpu 4 in one topology.berth.dev/numa; the largest numa fits 0 pods"
                + " (numa numa0 in hostname gpu-1 in rack r1 in block b1)"),
        when(
            "NUMA: 4+4 free GPUs serve the 4-GPU pod in one NUMA domain",
            () -> Cluster.empty().topology(NUMA_TOPOLOGY).node(numaNode("gpu-1")),
            1,
            gpus(4),
            required(NUMA),
            "b1/r1/gpu-1/numa0=1"),
        when(
            "NUMA: with numa0 used the pod goes to numa1",
            () ->
                Cluster.empty()
                    .topology(NUMA_TOPOLOGY)
                    .node(numaNode("gpu-1"))
                    .used("gpu-1", "numa0", gpus(4)),
            1,
            gpus(4),
            required(NUMA),
            "b1/r1/gpu-1/numa1=1"),
        when(
            "NUMA: a bound pod without a sub-domain fills the sub-domains in order",
            () -> Cluster.empty().topology(NUMA_TOPOLOGY).node(numaNode("gpu-1")).used("gpu-1", 6),
            1,
            gpus(2),
            required(HOST),
            "b1/r1/gpu-1/numa1=1"),
        when(
            "NUMA: best fit picks the half-used NUMA domain of the half-used node",
            () ->
                Cluster.empty()
                    .topology(NUMA_TOPOLOGY)
                    .node(numaNode("gpu-1"))
                    .node(numaNode("gpu-2"))
                    .used("gpu-2", "numa1", gpus(2)),
            1,
            gpus(2),
            required(NUMA),
            "b1/r1/gpu-2/numa1=1"),
        when(
            "without a NUMA level the same 2+2 free node serves the 4-GPU pod",
            () -> Cluster.empty().node(numaNode("gpu-1")).used("gpu-1", 4),
            1,
            gpus(4),
            required(HOST),
            "b1/r1/gpu-1=1"),
        // which nodes count
        when(
            "a not-ready node is ignored",
            () -> twoNodeRack().with("b1-r1-n2", n -> n.ready(false)),
            2,
            gpus(8),
            required(RACK),
            RACK_FITS_ONE),
        when(
            "an unschedulable node is ignored",
            () -> twoNodeRack().with("b1-r1-n2", n -> n.unschedulable(true)),
            2,
            gpus(8),
            required(RACK),
            RACK_FITS_ONE),
        when(
            "a node with an untolerated NoSchedule taint is ignored",
            () -> twoNodeRack().with("b1-r1-n2", n -> n.taint(MAINTENANCE)),
            2,
            gpus(8),
            required(RACK),
            RACK_FITS_ONE),
        when(
            "a tolerated taint keeps the node",
            () ->
                twoNodeRack()
                    .with("b1-r1-n2", n -> n.taint(MAINTENANCE))
                    .tolerations(Toleration.exists("gpu-maintenance", null)),
            2,
            gpus(8),
            required(RACK),
            "b1/r1/b1-r1-n1=1 b1/r1/b1-r1-n2=1"),
        when(
            "a PreferNoSchedule taint does not exclude the node",
            () ->
                twoNodeRack()
                    .with(
                        "b1-r1-n2",
                        n -> n.taint(new Taint("soft", "", TaintEffect.PreferNoSchedule))),
            2,
            gpus(8),
            required(RACK),
            "b1/r1/b1-r1-n1=1 b1/r1/b1-r1-n2=1"),
        when(
            "nodes without the flavor's node labels are ignored",
            () ->
                twoNodeRack()
                    .with("b1-r1-n1", n -> n.label("berth.dev/gpu", "h100"))
                    .nodeLabels(Map.of("berth.dev/gpu", "h100")),
            2,
            gpus(8),
            required(RACK),
            RACK_FITS_ONE),
        when(
            "a node without every level label is ignored",
            () ->
                Cluster.empty()
                    .node(TopologyNode.named("loose").label(BLOCK, "b1").allocatable(GPU, 8))
                    .node(gpuNode("b1-r1-n1", "b1", "r1", 8)),
            2,
            gpus(8),
            unconstrained(),
            "FAIL: needs 2 pods of nvidia.com/gpu 8; the whole topology fits 1 pod"),
        when(
            "no eligible node at all",
            Cluster::empty,
            1,
            gpus(8),
            required(RACK),
            "FAIL: needs 1 pod of nvidia.com/gpu 8 in one topology.berth.dev/rack; no eligible node has the"
                + " topology's labels"),
        // capacity
        when(
            "a pod already bound reduces the node's capacity",
            () -> twoNodeRack().used("b1-r1-n1", 1),
            1,
            gpus(8),
            required(HOST),
            "b1/r1/b1-r1-n2=1"),
        when(
            "cpu limits the pods per node",
            () -> grid(1, 1, 1, 8),
            3,
            Map.of("cpu", 24_000L, GPU, 1L),
            required(HOST),
            "FAIL: needs 3 pods of cpu 24, nvidia.com/gpu 1 in one kubernetes.io/hostname; the largest hostname"
                + " fits 2 pods (hostname b1-r1-n1 in rack r1 in block b1)"),
        when(
            "memory of a bound pod counts",
            () -> twoNodeRack().used("b1-r1-n1", null, Map.of("memory", 500L << 30)),
            1,
            Map.of("memory", 16L << 30, GPU, 1L),
            required(HOST),
            "b1/r1/b1-r1-n2=1"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void places(Case c) {
    NodeInventory inventory = c.cluster().get().inventory();
    Placement placement = new TopologyPlacer().place(inventory, c.count(), c.perPod(), c.request());
    assertThat(render(placement)).isEqualTo(c.expected());
    if (placement.isPlaced()) {
      assertThat(placement.assignment().podCount()).isEqualTo(c.count());
    } else {
      assertThat(placement.reason()).isEqualTo("TopologyPlacementFailed");
    }
  }
}
