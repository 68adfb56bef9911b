package dev.berth.engine;

import static dev.berth.engine.model.PendingReason.TopologyPlacementFailed;
import static dev.berth.engine.model.PendingReason.WaitingForQuota;
import static dev.berth.engine.topology.TopologyRequest.preferred;
import static dev.berth.engine.topology.TopologyRequest.required;
import static dev.berth.engine.topology.TopologyRequest.unconstrained;
import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.engine.model.LabelSelectorRequirement;
import dev.berth.engine.model.PendingReason;
import dev.berth.engine.model.PodSet;
import dev.berth.engine.model.PreemptionPolicy;
import dev.berth.engine.model.ResourceFlavor;
import dev.berth.engine.model.Taint;
import dev.berth.engine.model.TaintEffect;
import dev.berth.engine.model.Toleration;
import dev.berth.engine.model.Workload;
import dev.berth.engine.topology.Topology;
import dev.berth.engine.topology.TopologyAssignment;
import dev.berth.engine.topology.TopologyNode;
import dev.berth.engine.topology.TopologyRequest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Topology-aware admission driven through the {@link AdmissionEngine}: a ResourceFlavor with a
 * topologyName, nodes and bound pods, workloads asking for required, preferred or unconstrained
 * placement (optionally in slices), then cycles; each case states the admissions, the exact domains
 * of each topologyAssignment, or the pending reason and its numbers.
 */
class TopologyAdmissionTest {
  static final String GPU = "nvidia.com/gpu";
  static final String BLOCK = "topology.berth.dev/block";
  static final String RACK = "topology.berth.dev/rack";
  static final String HOST = Topology.HOSTNAME;
  static final String NUMA = "topology.berth.dev/numa";
  static final String MODEL = "gpu.berth.dev/model";
  static final Topology DEFAULT = Topology.of("default", BLOCK, RACK, HOST);
  static final Topology WITH_NUMA = Topology.of("numa", BLOCK, RACK, HOST).withSubNodeLevel(NUMA);
  static final ResourceFlavor H100 = topologyFlavor("h100", "default", Map.of());
  private static final Taint DEDICATED = new Taint("dedicated", "gpu", TaintEffect.NoSchedule);
  private static final PreemptionPolicy WITHIN_LOWER =
      new PreemptionPolicy(PreemptionPolicy.WithinClusterQueue.LowerPriority, null, null, null);

  static Stream<Case> cases() {
    return Stream.of(
        // ------------------------------------------------------------ required
        Case.named("required rack: 4 pods of 8 GPUs go to one rack, one pod per node")
            .pending(wl("w").podSet("main", 4, 8).request(required(RACK)))
            .admits("w")
            .placed("w", "main", each("b1/r1", 1, 4, 1))
            .free("h100", "b1/r1", 32)
            .free("h100", "", 480),
        Case.named("required rack: quota fits but no rack has 9 nodes: pending with the numbers")
            .pending(wl("w").podSet("main", 9, 8).request(required(RACK)))
            .admits()
            .pendingWith(
                "w",
                TopologyPlacementFailed,
                "podSet main in flavor h100: needs 9 pods of nvidia.com/gpu 8"
                    + " in one topology.berth.dev/rack; the largest rack fits 8 pods (rack r1 in block b1)")
            .check(
                o ->
                    assertThat(o.engine().status().usage("cq", "h100", GPU))
                        .as("no quota held")
                        .isZero()),
        Case.named("required rack: best fit is the rack that bound pods left just big enough")
            .bound("b1-r1-n1", 8)
            .bound("b1-r1-n2", 8)
            .bound("b1-r1-n3", 8)
            .bound("b1-r1-n4", 8)
            .bound("b1-r1-n5", 8)
            .bound("b1-r1-n6", 8)
            .pending(wl("w").podSet("main", 2, 8).request(required(RACK)))
            .placed("w", "main", each("b1/r1", 7, 8, 1)),
        Case.named("required rack: bound pods in every rack, the message names the largest")
            .nodes(grid(1, 2, 4, 8))
            .bound("b1-r1-n1", 8)
            .bound("b1-r2-n1", 8)
            .bound("b1-r2-n2", 8)
            .pending(wl("w").podSet("main", 4, 8).request(required(RACK)))
            .pendingWith(
                "w", TopologyPlacementFailed, "the largest rack fits 3 pods (rack r1 in block b1)"),
        Case.named("required block: 16 pods fill two racks of one block")
            .pending(wl("w").podSet("main", 16, 8).request(required(BLOCK)))
            .placed("w", "main", each("b1/r1", 1, 8, 1) + " " + each("b1/r2", 1, 8, 1)),
        // ------------------------------------------------------------ preferred
        Case.named("preferred rack: falls back to one block")
            .pending(wl("w").podSet("main", 12, 8).request(preferred(RACK)))
            .placed("w", "main", each("b1/r1", 1, 8, 1) + " " + each("b1/r2", 1, 4, 1)),
        Case.named("preferred rack: falls back to the whole topology")
            .pending(wl("w").podSet("main", 40, 8).request(preferred(RACK)))
            .podsIn("w", "main", "b1", 32)
            .podsIn("w", "main", "b2/r1", 8),
        Case.named("preferred rack: one rack when one has room, the best-fitting one")
            .bound("b1-r1-n1", 8)
            .bound("b1-r1-n2", 8)
            .bound("b1-r1-n3", 8)
            .bound("b1-r1-n4", 8)
            .pending(wl("w").podSet("main", 4, 8).request(preferred(RACK)))
            .placed("w", "main", each("b1/r1", 5, 8, 1)),
        Case.named("preferred rack: more than the whole topology is refused with the total")
            .quota("1024")
            .pending(wl("w").podSet("main", 65, 8).request(preferred(RACK)))
            .pendingWith(
                "w",
                TopologyPlacementFailed,
                "needs 65 pods of nvidia.com/gpu 8 (preferred in one"
                    + " topology.berth.dev/rack); the whole topology fits 64 pods"),
        // ------------------------------------------------------------ unconstrained
        Case.named("unconstrained: the fewest nodes, four 2-GPU pods on one node")
            .pending(wl("w").podSet("main", 4, 2).request(unconstrained()))
            .placed("w", "main", "b1/r1/b1-r1-n1=4"),
        Case.named("unconstrained: the node with just enough room, not an empty one")
            .bound("b1-r1-n1", 6)
            .bound("b1-r1-n2", 2)
            .pending(wl("w").podSet("main", 3, 2).request(unconstrained()))
            .placed("w", "main", "b1/r1/b1-r1-n2=3"),
        // ------------------------------------------------------------ slices
        Case.named("slices: each slice of 2 pods shares one node, all in one rack")
            .pending(wl("w").podSet("main", 8, 4).request(required(RACK).inSlices(2, HOST)))
            .placed("w", "main", each("b1/r1", 1, 4, 2)),
        Case.named("slices: a half-used node holds no slice")
            .bound("b1-r1-n1", 4)
            .pending(wl("w").podSet("main", 8, 4).request(required(RACK).inSlices(2, HOST)))
            .placed("w", "main", each("b1/r1", 2, 5, 2)),
        Case.named("slices: rack-sized slices in one block skip a rack with a busy node")
            .bound("b1-r1-n1", 8)
            .pending(wl("w").podSet("main", 16, 8).request(required(BLOCK).inSlices(8, RACK)))
            .placed("w", "main", each("b1/r2", 1, 8, 1) + " " + each("b1/r3", 1, 8, 1)),
        Case.named("slices: a count the slice size does not divide is refused")
            .pending(wl("w").podSet("main", 6, 8).request(required(RACK).inSlices(4, HOST)))
            .pendingWith(
                "w",
                TopologyPlacementFailed,
                "podSet main in flavor h100: 6 pods cannot be cut into slices of 4"),
        // ------------------------------------------------------------ several podSets, several
        // workloads
        Case.named("two podSets: the second sees the nodes the first took")
            .pending(
                wl("w")
                    .podSet("a", 2, 8)
                    .request(required(RACK))
                    .podSet("b", 2, 8)
                    .request(required(RACK)))
            .placed("w", "a", each("b1/r1", 1, 2, 1))
            .placed("w", "b", each("b1/r1", 3, 4, 1)),
        Case.named("two podSets: the second goes to another rack when the first left too little")
            .pending(
                wl("w")
                    .podSet("a", 6, 8)
                    .request(required(RACK))
                    .podSet("b", 4, 8)
                    .request(required(RACK)))
            .placed("w", "a", each("b1/r1", 1, 6, 1))
            .placed("w", "b", each("b1/r2", 1, 4, 1)),
        Case.named("a podSet group: leader and workers share the one rack that holds both")
            // b1/r1 has 7 free nodes: the workers alone would fit there, the group does not.
            .bound("b1-r1-n1", 8)
            .pending(
                wl("w")
                    .podSet("leader", 1, 8)
                    .request(required(RACK).inGroup("g"))
                    .podSet("workers", 7, 8)
                    .request(required(RACK).inGroup("g")))
            .podsIn("w", "leader", "b1/r2", 1)
            .podsIn("w", "workers", "b1/r2", 7),
        Case.named("without a group the same podSets go to different racks")
            .bound("b1-r1-n1", 8)
            .pending(
                wl("w")
                    .podSet("leader", 1, 8)
                    .request(required(RACK))
                    .podSet("workers", 7, 8)
                    .request(required(RACK)))
            .podsIn("w", "leader", "b1/r1", 1)
            .podsIn("w", "workers", "b1/r2", 7),
        Case.named("a podSet group that no rack holds waits, naming the group")
            .nodes(grid(1, 2, 4, 8))
            .pending(
                wl("w")
                    .podSet("leader", 1, 8)
                    .request(required(RACK).inGroup("g"))
                    .podSet("workers", 4, 8)
                    .request(required(RACK).inGroup("g")))
            .pendingWith(
                "w",
                TopologyPlacementFailed,
                "podSet group g in flavor h100: no topology.berth.dev/rack holds all of its podSets"
                    + " [leader, workers]"),
        Case.named("two podSets: when the second cannot be placed the first's nodes are given back")
            .nodes(grid(1, 1, 8, 8))
            .pending(
                wl("w")
                    .priority(10)
                    .podSet("a", 4, 8)
                    .request(required(RACK))
                    .podSet("b", 5, 8)
                    .request(required(RACK)),
                wl("v").podSet("main", 8, 8).request(required(RACK)))
            .admits("v")
            .pendingWith(
                "w",
                TopologyPlacementFailed,
                "podSet b in flavor h100: needs 5 pods of nvidia.com/gpu 8"
                    + " in one topology.berth.dev/rack; the largest rack fits 4 pods (rack r1 in block b1)")
            .placed("v", "main", each("b1/r1", 1, 8, 1)),
        Case.named("two workloads in one cycle compete for a rack: the second takes the other rack")
            .nodes(grid(1, 2, 4, 8))
            .pending(
                wl("w1").created(1).podSet("main", 4, 8).request(required(RACK)),
                wl("w2").created(2).podSet("main", 4, 8).request(required(RACK)))
            .admitsInOrder("w1", "w2")
            .placed("w1", "main", each("b1/r1", 1, 4, 1))
            .placed("w2", "main", each("b1/r2", 1, 4, 1)),
        Case.named("two workloads in one cycle compete for the only rack: the second waits")
            .nodes(grid(1, 1, 4, 8))
            .pending(
                wl("w1").created(1).podSet("main", 4, 8).request(required(RACK)),
                wl("w2").created(2).podSet("main", 2, 8).request(required(RACK)))
            .admits("w1")
            .pendingWith(
                "w2",
                TopologyPlacementFailed,
                "the largest rack fits 0 pods (rack r1 in block b1)"),
        // ------------------------------------------------------------ bound pods and waking
        Case.named("deleting a bound pod wakes a parked workload (BestEffortFIFO)")
            .nodes(grid(1, 1, 4, 8))
            .bound("p1", "b1-r1-n1", 8)
            .pending(wl("w").podSet("main", 4, 8).request(required(RACK)))
            .pendingWith("w", TopologyPlacementFailed, "the largest rack fits 3 pods")
            .then(e -> e.deleteBoundPod("p1"))
            .admits("w")
            .placed("w", "main", each("b1/r1", 1, 4, 1)),
        Case.named("deleting a bound pod wakes a blocked StrictFIFO head, then the one behind it")
            .nodes(grid(1, 2, 4, 8))
            .strictFifo()
            .bound("p1", "b1-r1-n1", 8)
            .bound("p2", "b1-r2-n1", 8)
            .pending(
                wl("head").priority(10).podSet("main", 4, 8).request(required(RACK)),
                wl("next").podSet("main", 1, 8).request(required(RACK)))
            .admits()
            .pendingWith("head", TopologyPlacementFailed, "the largest rack fits 3 pods")
            .pendingWith(
                "next",
                WaitingForQuota,
                "waiting behind head, the head of StrictFIFO ClusterQueue cq")
            .then(e -> e.deleteBoundPod("p1"))
            .admitsInOrder("head", "next")
            .placed("head", "main", each("b1/r1", 1, 4, 1))
            .placed("next", "main", "b1/r2/b1-r2-n2=1"),
        Case.named("a bound pod that shrinks wakes a waiter")
            .nodes(grid(1, 1, 4, 8))
            .bound("p1", "b1-r1-n1", 8)
            .pending(wl("w").podSet("main", 4, 8).request(required(RACK)))
            .then(e -> e.upsertBoundPod("p1", "b1-r1-n1", Map.of("cpu", 1000L)))
            .admits("w"),
        Case.named("an unchanged node or bound pod upsert (a resync) wakes nothing")
            .nodes(grid(1, 1, 3, 8))
            .bound("p1", "b1-r1-n1", 4)
            .pending(wl("w").podSet("main", 4, 8).request(required(RACK)))
            .then(
                e -> {
                  e.upsertNode(gpuNode("b1-r1-n1", "b1", "r1", 8).build());
                  e.upsertBoundPod("p1", "b1-r1-n1", Map.of(GPU, 4L));
                })
            .evaluationsInLastCycle(0)
            .admits()
            .pendingWith("w", TopologyPlacementFailed, "the largest rack fits 2 pods"),
        Case.named("a finished topology workload frees its rack: the waiter is admitted next cycle")
            .nodes(grid(1, 1, 8, 8))
            .pending(
                wl("w1").created(1).podSet("main", 8, 8).request(required(RACK)),
                wl("w2").created(2).podSet("main", 8, 8).request(required(RACK)))
            .admits("w1")
            .pendingWith("w2", TopologyPlacementFailed, "the largest rack fits 0 pods")
            .then(e -> e.workloadFinished("w1"))
            .admitsInOrder("w1", "w2")
            .placed("w2", "main", each("b1/r1", 1, 8, 1)),
        Case.named(
                "an evicted topology workload frees its rack and waits behind the one it blocked")
            .nodes(grid(1, 1, 8, 8))
            .pending(
                wl("w1").created(1).podSet("main", 8, 8).request(required(RACK)),
                wl("w2").created(2).podSet("main", 8, 8).request(required(RACK)))
            .then(e -> e.workloadEvicted("w1", 5000))
            .admitsInOrder("w1", "w2")
            .pendingWith("w1", TopologyPlacementFailed, "the largest rack fits 0 pods"),
        // ------------------------------------------------------------ nodes
        Case.named("a node added to the rack wakes a waiter")
            .nodes(grid(1, 1, 3, 8))
            .pending(wl("w").podSet("main", 4, 8).request(required(RACK)))
            .pendingWith("w", TopologyPlacementFailed, "the largest rack fits 3 pods")
            .then(e -> e.upsertNode(gpuNode("b1-r1-n4", "b1", "r1", 8).build()))
            .placed("w", "main", each("b1/r1", 1, 4, 1)),
        Case.named("a NotReady node is not used; Ready again, it wakes the waiter")
            .nodes(grid(1, 1, 4, 8))
            .node("b1-r1-n1", n -> n.ready(false))
            .pending(wl("w").podSet("main", 4, 8).request(required(RACK)))
            .pendingWith("w", TopologyPlacementFailed, "the largest rack fits 3 pods")
            .then(e -> e.upsertNode(gpuNode("b1-r1-n1", "b1", "r1", 8).build()))
            .admits("w"),
        Case.named("a cordoned node is not used")
            .nodes(grid(1, 1, 4, 8))
            .node("b1-r1-n2", n -> n.unschedulable(true))
            .pending(wl("w").podSet("main", 3, 8).request(required(RACK)))
            .placed("w", "main", "b1/r1/b1-r1-n1=1 b1/r1/b1-r1-n3=1 b1/r1/b1-r1-n4=1"),
        Case.named(
                "a NoSchedule taint the flavor does not tolerate keeps a node out; PreferNoSchedule does not")
            .nodes(grid(1, 1, 4, 8))
            .node(
                "b1-r1-n1", n -> n.taint(new Taint("maintenance", "true", TaintEffect.NoSchedule)))
            .node(
                "b1-r1-n2", n -> n.taint(new Taint("noisy", "true", TaintEffect.PreferNoSchedule)))
            .pending(
                wl("w").priority(10).podSet("main", 4, 8).request(required(RACK)),
                wl("v").podSet("main", 3, 8).request(required(RACK)))
            .admits("v")
            .placed("v", "main", each("b1/r1", 2, 4, 1))
            .pendingWith("w", TopologyPlacementFailed, "the largest rack fits 3 pods"),
        Case.named("flavor nodeLabels: only its nodes are used")
            .nodes(grid(2, 1, 8, 8))
            .node(name -> name.startsWith("b1"), n -> n.label(MODEL, "a100"))
            .node(name -> name.startsWith("b2"), n -> n.label(MODEL, "h100"))
            .flavors(topologyFlavor("h100", "default", Map.of(MODEL, "h100")))
            .pending(
                wl("big").priority(10).podSet("main", 9, 8).request(preferred(RACK)),
                wl("w").podSet("main", 4, 8).request(required(RACK)))
            .pendingWith("big", TopologyPlacementFailed, "the whole topology fits 8 pods")
            .placed("w", "main", each("b2/r1", 1, 4, 1)),
        Case.named("flavor nodeTaints are tolerated implicitly by its placement")
            .nodes(grid(1, 1, 4, 8))
            .allNodes(n -> n.taint(DEDICATED))
            .flavors(new ResourceFlavor("h100", Map.of(), List.of(DEDICATED), List.of(), "default"))
            .pending(
                wl("w")
                    .podSet("main", 4, 8)
                    .request(required(RACK))
                    .toleration(Toleration.equal("dedicated", "gpu", TaintEffect.NoSchedule)))
            .placed("w", "main", each("b1/r1", 1, 4, 1)),
        Case.named("podSet nodeSelector narrows the nodes it is placed on")
            .pending(wl("w").podSet("main", 4, 8).request(required(RACK)).nodeSelector(BLOCK, "b2"))
            .placed("w", "main", each("b2/r1", 1, 4, 1)),
        Case.named("podSet required node affinity narrows the nodes it is placed on")
            .pending(
                wl("w")
                    .podSet("main", 2, 8)
                    .request(required(RACK))
                    .affinity(RACK, LabelSelectorRequirement.Operator.NotIn, "r1"))
            .placed("w", "main", each("b1/r2", 1, 2, 1)),
        Case.named(
                "a node deleted and back, or its Topology recreated, still counts the pods placed on it")
            .nodes(grid(1, 1, 4, 8))
            .pending(wl("w").podSet("main", 4, 8).request(required(RACK)))
            .admits("w")
            .then(e -> e.deleteNode("b1-r1-n1"))
            .free("h100", "b1/r1", 0)
            .then(
                e -> {
                  e.upsertNode(gpuNode("b1-r1-n1", "b1", "r1", 8).build());
                  e.deleteTopology("default");
                  e.upsertTopology(DEFAULT);
                  e.upsertWorkload(wl("v").podSet("main", 1, 8).request(required(RACK)).build());
                })
            .admits("w")
            .free("h100", "b1/r1", 0)
            .pendingWith("v", TopologyPlacementFailed, "the largest rack fits 0 pods"),
        Case.named("requests on another flavor of the podSet count on the same nodes")
            .nodes(grid(1, 1, 4, 8))
            .allNodes(n -> n.allocatable("cpu", "64"))
            // Every flavor of a topology-aware podSet must name a Topology (as in Kueue).
            .flavors(H100, new ResourceFlavor("default", Map.of(), List.of(), List.of(), "default"))
            .queue(
                Builders.clusterQueue("cq")
                    .flavor("default")
                    .res("cpu", "256")
                    .newGroup()
                    .flavor("h100")
                    .res(GPU, "512"))
            .pending(wl("w").podSet("main", 4, 1).cpu("40").request(unconstrained()))
            .placed("w", "main", each("b1/r1", 1, 4, 1))
            .flavorOf("w", "main", "h100"),
        Case.named(
                "duplicate hostnames: refused with a clear message; deleting the duplicate wakes the waiter")
            .nodes(grid(1, 1, 4, 8))
            .node(gpuNode("imposter", "b1", "r1", 8).label(HOST, "b1-r1-n1"))
            .pending(wl("w").podSet("main", 4, 8).request(required(RACK)))
            .pendingWith(
                "w",
                TopologyPlacementFailed,
                "podSet main: Topology default of flavor h100 is unusable:"
                    + " nodes share the lowest level value b1/r1/b1-r1-n1")
            .then(e -> e.deleteNode("imposter"))
            .placed("w", "main", each("b1/r1", 1, 4, 1)),
        // ------------------------------------------------------------ flavors and Topology objects
        Case.named(
                "a flavor whose Topology does not exist: refused saying so; creating it wakes the waiter")
            .topologies()
            .pending(wl("w").podSet("main", 4, 8).request(required(RACK)))
            .pendingWith(
                "w",
                TopologyPlacementFailed,
                "podSet main: Topology default of flavor h100 does not exist")
            .then(e -> e.upsertTopology(DEFAULT))
            .placed("w", "main", each("b1/r1", 1, 4, 1)),
        Case.named("a topologyRequest matches no flavor without topologyName")
            .flavors(ResourceFlavor.named("plain"))
            .queue(Builders.clusterQueue("cq").flavor("plain").res(GPU, "512"))
            .pending(wl("w").podSet("main", 4, 8).request(required(RACK)))
            .pendingWith(
                "w",
                PendingReason.NoMatchingFlavor,
                "flavor plain has no topologyName, podSet main asks for a topology"),
        Case.named(
                "a topologyRequest skips a flavor without topologyName for the next one that has one")
            .nodes(grid(1, 1, 4, 8))
            .flavors(ResourceFlavor.named("plain"), H100)
            .queue(
                Builders.clusterQueue("cq")
                    .flavor("plain")
                    .res(GPU, "512")
                    .flavor("h100")
                    .res(GPU, "512"))
            .pending(wl("w").podSet("main", 4, 8).request(required(RACK)))
            .placed("w", "main", each("b1/r1", 1, 4, 1))
            .flavorOf("w", "main", "h100"),
        Case.named(
                "no topologyRequest on a topology flavor: admitted by quota alone, no node capacity taken")
            .nodes(grid(1, 1, 4, 8))
            .pending(
                wl("quota-only").created(1).podSet("main", 8, 8),
                wl("w").created(2).podSet("main", 4, 8).request(required(RACK)))
            .admitsInOrder("quota-only", "w")
            .noPlacement("quota-only", "main")
            .placed("w", "main", each("b1/r1", 1, 4, 1))
            .free("h100", "b1/r1", 0),
        twoPools(
                "two topology flavors: the first full by quota, the second's nodes are used",
                "8",
                "64")
            .pending(wl("w").podSet("main", 4, 8).request(required(RACK)))
            .flavorOf("w", "main", "h100-b")
            .placed("w", "main", each("b2/r1", 1, 4, 1)),
        twoPools(
                "two topology flavors: a failed placement on the first does not try the second",
                "64",
                "64")
            .pending(wl("w").podSet("main", 5, 8).request(required(RACK)))
            .pendingWith(
                "w", TopologyPlacementFailed, "podSet main in flavor h100-a: needs 5 pods"),
        twoPools(
                "a podSet group takes one flavor: the first holds the leader, not the group",
                "16",
                "64")
            .pending(
                wl("w")
                    .podSet("leader", 1, 8)
                    .request(required(RACK).inGroup("g"))
                    .podSet("workers", 2, 8)
                    .request(required(RACK).inGroup("g")))
            .flavorOf("w", "leader", "h100-b")
            .flavorOf("w", "workers", "h100-b")
            .podsIn("w", "leader", "b2/r1", 1)
            .podsIn("w", "workers", "b2/r1", 2),
        twoPools(
                "without a group the leader takes the first flavor, the workers the second",
                "16",
                "64")
            .pending(
                wl("w")
                    .podSet("leader", 1, 8)
                    .request(required(RACK))
                    .podSet("workers", 2, 8)
                    .request(required(RACK)))
            .flavorOf("w", "leader", "h100-a")
            .flavorOf("w", "workers", "h100-b"),
        Case.named("quota NoFit reports the quota reason; topology is not consulted")
            .quota("40")
            .topologies()
            .pending(
                wl("first").priority(10).podSet("main", 2, 8),
                wl("w").podSet("main", 4, 8).request(required(RACK)))
            .admits("first")
            .pendingWith(
                "w", WaitingForQuota, "needs nvidia.com/gpu 32 on flavor h100; 24 available"),
        Case.named("partial admission: the count quota allows is placed")
            .quota("48")
            .pending(wl("w").podSet("main", 8, 8).minCount(4).request(required(RACK)))
            .count("w", "main", 6)
            .placed("w", "main", each("b1/r1", 1, 6, 1)),
        // ------------------------------------------------------------ preemption
        Case.named(
                "preemption: the victim's eviction frees its nodes and the preemptor is placed there")
            .nodes(grid(1, 1, 4, 8))
            .queue(
                Builders.clusterQueue("cq").flavor("h100").res(GPU, "32").preemption(WITHIN_LOWER))
            .pending(wl("low").podSet("main", 4, 8).request(required(RACK)))
            .admits("low")
            .then(
                e ->
                    e.upsertWorkload(
                        wl("high")
                            .priority(10)
                            .podSet("main", 4, 8)
                            .request(required(RACK))
                            .build()))
            .evicts("low")
            .pendingWith("high", PendingReason.WaitingForPreemptedWorkloads, "low")
            .then(e -> e.workloadEvicted("low", 5000))
            .admitsInOrder("low", "high")
            .placed("high", "main", each("b1/r1", 1, 4, 1)),
        Case.named(
                "preemption: no victim is evicted when their nodes would still not hold the preemptor")
            .nodes(grid(1, 2, 2, 8))
            .bound("b1-r1-n2", 8)
            .bound("b1-r2-n2", 8)
            .queue(
                Builders.clusterQueue("cq").flavor("h100").res(GPU, "24").preemption(WITHIN_LOWER))
            .pending(wl("low").podSet("main", 2, 8).request(unconstrained()))
            .placed("low", "main", "b1/r1/b1-r1-n1=1 b1/r2/b1-r2-n1=1")
            .then(
                e ->
                    e.upsertWorkload(
                        wl("high")
                            .priority(10)
                            .podSet("main", 2, 8)
                            .request(required(RACK))
                            .build()))
            .pendingWith(
                "high",
                TopologyPlacementFailed,
                "podSet main in flavor h100: needs 2 pods of nvidia.com/gpu 8"
                    + " in one topology.berth.dev/rack; the largest rack fits 1 pod (rack r1 in block b1)")
            .noEvictions()
            // A wake (a node elsewhere) must not start evicting either.
            .then(e -> e.upsertNode(gpuNode("b2-r1-n1", "b2", "r1", 0).build()))
            .noEvictions()
            .then(e -> e.deleteBoundPod("b1-r1-n2/pod0"))
            .evicts("low")
            .then(e -> e.workloadEvicted("low", 5000))
            .placed("high", "main", each("b1/r1", 1, 2, 1)),
        Case.named(
                "preemption: victims admitted by quota alone are evicted (their pods are only bound pods)")
            .nodes(grid(1, 1, 4, 8))
            .queue(
                Builders.clusterQueue("cq").flavor("h100").res(GPU, "32").preemption(WITHIN_LOWER))
            .pending(wl("low").podSet("main", 4, 8))
            .admits("low")
            .then(
                e -> {
                  IntStream.rangeClosed(1, 4)
                      .forEach(i -> e.upsertBoundPod("low-" + i, "b1-r1-n" + i, Map.of(GPU, 8L)));
                  e.upsertWorkload(
                      wl("high").priority(10).podSet("main", 4, 8).request(required(RACK)).build());
                })
            .evicts("low")
            .then(
                e -> {
                  e.workloadEvicted("low", 5000);
                  IntStream.rangeClosed(1, 4).forEach(i -> e.deleteBoundPod("low-" + i));
                })
            .admitsInOrder("low", "high")
            .placed("high", "main", each("b1/r1", 1, 4, 1)),
        // ------------------------------------------------------------ restart and rollback
        Case.named(
                "restart: a recorded topologyAssignment takes its nodes again, no double booking")
            .nodes(grid(1, 1, 8, 8))
            .running(wl("r").podSet("main", 4, 8).request(required(RACK)), each("b1/r1", 1, 4, 1))
            .pending(
                wl("big").priority(10).podSet("main", 5, 8).request(required(RACK)),
                wl("w").podSet("main", 4, 8).request(required(RACK)))
            .pendingWith("big", TopologyPlacementFailed, "the largest rack fits 4 pods")
            .placed("w", "main", each("b1/r1", 5, 8, 1)),
        Case.named(
                "restart: recorded before its ResourceFlavor is known, the placement still counts")
            .nodes(grid(1, 1, 8, 8))
            .recordFirst()
            .running(wl("r").podSet("main", 8, 8).request(required(RACK)), each("b1/r1", 1, 8, 1))
            .pending(wl("w").podSet("main", 1, 8).request(required(RACK)))
            .admits()
            .pendingWith("w", TopologyPlacementFailed, "the largest rack fits 0 pods"),
        Case.named("rollback frees the placement; the workload is placed again next cycle")
            .nodes(grid(1, 1, 4, 8))
            .pending(wl("w").podSet("main", 4, 8).request(required(RACK)))
            .then(
                e -> {
                  assertThat(e.rollback(e.admission("w").orElseThrow())).isTrue();
                  assertThat(e.topologyInventories().get("h100").freeOf(List.of("b1", "r1")))
                      .containsEntry(GPU, 32L);
                })
            .admitsInOrder("w", "w")
            .free("h100", "b1/r1", 0),
        Case.named("restart then rollback of the recorded workload frees its nodes")
            .nodes(grid(1, 1, 4, 8))
            .running(
                wl("r").created(5).podSet("main", 4, 8).request(required(RACK)),
                each("b1/r1", 1, 4, 1))
            .pending(wl("w").created(1).podSet("main", 4, 8).request(required(RACK)))
            .admits()
            .then(e -> e.rollback(e.admission("r").orElseThrow()))
            .admits("w")
            .pendingWith("r", TopologyPlacementFailed, "the largest rack fits 0 pods"),
        // ------------------------------------------------------------ NUMA sub-domains
        Case.named("NUMA: 4 free GPUs split over two NUMA domains do not hold a 4-GPU pod")
            .topologies(WITH_NUMA)
            .flavors(topologyFlavor("h100", "numa", Map.of()))
            .nodes(List.of(numaNode("b1-r1-n1")))
            .bound("p0", "b1-r1-n1", "numa0", Map.of(GPU, 2L))
            .bound("p1", "b1-r1-n1", "numa1", Map.of(GPU, 2L))
            .pending(wl("w").podSet("main", 1, 4).request(required(HOST)))
            .pendingWith(
                "w",
                TopologyPlacementFailed,
                "needs 1 pod of nvidia.com/gpu 4 in one kubernetes.io/hostname;"
                    + " the largest hostname fits 0 pods")
            .free("h100", "b1/r1/b1-r1-n1", 4)
            .then(e -> e.deleteBoundPod("p1"))
            .placed("w", "main", "b1/r1/b1-r1-n1/numa1=1"),
        Case.named(
                "NUMA: bound pods without a domain fill the node's domains in order; 4 free in one fits")
            .topologies(WITH_NUMA)
            .flavors(topologyFlavor("h100", "numa", Map.of()))
            .nodes(List.of(numaNode("b1-r1-n1")))
            .bound("p0", "b1-r1-n1", 2)
            .bound("p1", "b1-r1-n1", 2)
            .pending(wl("w").podSet("main", 1, 4).request(required(HOST)))
            .placed("w", "main", "b1/r1/b1-r1-n1/numa1=1"),
        Case.named(
                "NUMA: a pod leaving is charged as if it never came, not to the first domain with room")
            .topologies(WITH_NUMA)
            .flavors(topologyFlavor("h100", "numa", Map.of()))
            .nodes(List.of(numaNode("b1-r1-n1")))
            .bound("a", "b1-r1-n1", 6)
            .bound("b", "b1-r1-n1", 2)
            .pending(wl("w").podSet("main", 1, 2).request(required(HOST)))
            .pendingWith("w", TopologyPlacementFailed, "the largest hostname fits 0 pods")
            // a: numa0 4 + numa1 2; without b, numa1 has 2 free and numa0 none.
            .then(e -> e.deleteBoundPod("b"))
            .placed("w", "main", "b1/r1/b1-r1-n1/numa1=1"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void admission(Case c) {
    c.run();
  }

  // ---------------------------------------------------------------- cluster builders

  static ResourceFlavor topologyFlavor(
      String name, String topology, Map<String, String> nodeLabels) {
    return new ResourceFlavor(name, nodeLabels, List.of(), List.of(), topology);
  }

  static TopologyNode.Builder gpuNode(String name, String block, String rack, long gpus) {
    return TopologyNode.named(name).label(BLOCK, block).label(RACK, rack).allocatable(GPU, gpus);
  }

  /** {@code blocks × racks × nodes} nodes of {@code gpus} GPUs, named b1-r1-n1. */
  static List<TopologyNode.Builder> grid(int blocks, int racks, int nodes, long gpus) {
    List<TopologyNode.Builder> out = new ArrayList<>();
    for (int b = 1; b <= blocks; b++) {
      for (int r = 1; r <= racks; r++) {
        for (int n = 1; n <= nodes; n++) {
          out.add(gpuNode("b" + b + "-r" + r + "-n" + n, "b" + b, "r" + r, gpus));
        }
      }
    }
    return out;
  }

  /** An 8-GPU node given as two NUMA domains of 4 GPUs. */
  static TopologyNode.Builder numaNode(String name) {
    return TopologyNode.named(name)
        .label(BLOCK, "b1")
        .label(RACK, "r1")
        .subDomain("numa0", Map.of(GPU, 4L))
        .subDomain("numa1", Map.of(GPU, 4L));
  }

  /** Blocks b1 (flavor h100-a) and b2 (flavor h100-b), with the queue's GPU quota of each. */
  static Case twoPools(String name, String quotaA, String quotaB) {
    return Case.named(name)
        .nodes(grid(2, 1, 4, 8))
        .node(n -> n.startsWith("b1"), n -> n.label("pool", "a"))
        .node(n -> n.startsWith("b2"), n -> n.label("pool", "b"))
        .flavors(
            topologyFlavor("h100-a", "default", Map.of("pool", "a")),
            topologyFlavor("h100-b", "default", Map.of("pool", "b")))
        .queue(
            Builders.clusterQueue("cq")
                .flavor("h100-a")
                .res(GPU, quotaA)
                .flavor("h100-b")
                .res(GPU, quotaB));
  }

  /**
   * Nodes {@code from..to} of a rack ("b1/r1"), {@code count} pods each, as {@link #render} writes
   * them.
   */
  static String each(String rack, int from, int to, int count) {
    String prefix = rack.replace('/', '-') + "-n";
    return IntStream.rangeClosed(from, to)
        .mapToObj(i -> rack + "/" + prefix + i + "=" + count)
        .collect(Collectors.joining(" "));
  }

  /** "b1/r1/b1-r1-n1=2 b1/r1/b1-r1-n2=1": the leaf domains and their pod counts. */
  static String render(TopologyAssignment a) {
    return a.domains().stream()
        .map(d -> String.join("/", d.values()) + "=" + d.count())
        .collect(Collectors.joining(" "));
  }

  /** The inverse of {@link #render}, on the levels of {@code topology}. */
  static TopologyAssignment parse(Topology topology, String rendered) {
    List<TopologyAssignment.Domain> domains = new ArrayList<>();
    for (String d : rendered.split(" ")) {
      String[] kv = d.split("=");
      domains.add(
          new TopologyAssignment.Domain(List.of(kv[0].split("/")), Integer.parseInt(kv[1])));
    }
    return new TopologyAssignment(topology.levels(), domains);
  }

  static W wl(String name) {
    return new W(name);
  }

  /** A workload in LocalQueue default/lq; every podSet requests {@code gpus} GPUs per pod. */
  static final class W {
    private final Builders.WorkloadBuilder b;

    W(String name) {
      b = Builders.workload(name);
    }

    W priority(int p) {
      b.priority(p);
      return this;
    }

    W created(long t) {
      b.created(t);
      return this;
    }

    W podSet(String psName, int count, long gpus) {
      b.podSet(psName, count, GPU, String.valueOf(gpus));
      return this;
    }

    W cpu(String quantity) {
      b.request("cpu", quantity);
      return this;
    }

    W request(TopologyRequest r) {
      b.topology(r);
      return this;
    }

    W minCount(int m) {
      b.minCount(m);
      return this;
    }

    W nodeSelector(String key, String value) {
      b.nodeSelector(key, value);
      return this;
    }

    W affinity(String key, LabelSelectorRequirement.Operator op, String... values) {
      b.requiredAffinity(key, op, values);
      return this;
    }

    W toleration(Toleration t) {
      b.toleration(t);
      return this;
    }

    Workload build() {
      return b.build();
    }
  }

  // ---------------------------------------------------------------- the case

  /** Every admission so far, the result of each cycle, and the engine after them. */
  record Outcome(AdmissionEngine engine, List<Admission> admissions, List<CycleResult> cycles) {
    List<String> names() {
      return admissions.stream().map(Admission::name).toList();
    }

    /** The podSet's assignment in the workload's latest admission. */
    PodSetAssignment podSet(String workload, String podSet) {
      for (int i = admissions.size() - 1; i >= 0; i--) {
        Admission a = admissions.get(i);
        if (a.name().equals(workload)) {
          return a.podSetAssignments().stream()
              .filter(p -> p.name().equals(podSet))
              .findFirst()
              .orElseThrow();
        }
      }
      throw new AssertionError(workload + " was not admitted; admitted: " + names());
    }
  }

  /**
   * One named case: a default cluster (2 blocks × 4 racks × 8 nodes of 8 GPUs, flavor h100 on
   * Topology default, ClusterQueue cq with 512 GPUs, LocalQueue lq) changed as told, then a cycle.
   * Expectations and {@code then} steps run in the order written: an expectation checks the state
   * after the cycles so far; a step changes the engine and runs one more cycle.
   */
  static final class Case {
    private final String name;
    private final List<ResourceFlavor> flavors = new ArrayList<>(List.of(H100));
    private final List<Topology> topologies = new ArrayList<>(List.of(DEFAULT, WITH_NUMA));
    private final Map<String, TopologyNode.Builder> nodes = new LinkedHashMap<>();
    private final List<Bound> bound = new ArrayList<>();
    private Builders.QueueBuilder queue =
        Builders.clusterQueue("cq").flavor("h100").res(GPU, "512");
    private boolean strict;
    private boolean recordFirst;
    private final List<Object[]> running = new ArrayList<>();
    private final List<W> pending = new ArrayList<>();
    private final List<Object> steps = new ArrayList<>();

    private record Bound(String uid, String node, String subDomain, Map<String, Long> requests) {}

    private Case(String name) {
      this.name = name;
      grid(2, 4, 8, 8).forEach(n -> nodes.put(n.build().name(), n));
    }

    static Case named(String name) {
      return new Case(name);
    }

    Case nodes(List<TopologyNode.Builder> value) {
      nodes.clear();
      value.forEach(n -> nodes.put(n.build().name(), n));
      return this;
    }

    Case node(TopologyNode.Builder n) {
      nodes.put(n.build().name(), n);
      return this;
    }

    Case node(String nodeName, UnaryOperator<TopologyNode.Builder> change) {
      change.apply(nodes.get(nodeName));
      return this;
    }

    Case node(Predicate<String> which, UnaryOperator<TopologyNode.Builder> change) {
      nodes.forEach(
          (n, b) -> {
            if (which.test(n)) {
              change.apply(b);
            }
          });
      return this;
    }

    Case allNodes(UnaryOperator<TopologyNode.Builder> change) {
      return node(n -> true, change);
    }

    Case flavors(ResourceFlavor... f) {
      flavors.clear();
      flavors.addAll(Arrays.asList(f));
      return this;
    }

    Case topologies(Topology... t) {
      topologies.clear();
      topologies.addAll(Arrays.asList(t));
      return this;
    }

    Case queue(Builders.QueueBuilder q) {
      queue = q;
      return this;
    }

    Case quota(String gpus) {
      return queue(Builders.clusterQueue("cq").flavor("h100").res(GPU, gpus));
    }

    Case strictFifo() {
      strict = true;
      return this;
    }

    /**
     * A pod already bound to the node, holding {@code gpus} GPUs; its UID is "node/podN", N
     * counting pods.
     */
    Case bound(String node, long gpus) {
      return bound(node + "/pod" + bound.size(), node, gpus);
    }

    Case bound(String uid, String node, long gpus) {
      return bound(uid, node, null, Map.of(GPU, gpus));
    }

    Case bound(String uid, String node, String subDomain, Map<String, Long> requests) {
      bound.add(new Bound(uid, node, subDomain, requests));
      return this;
    }

    /** An admitted workload found at restart: its one podSet on flavor h100, in these domains. */
    Case running(W w, String placement) {
      running.add(new Object[] {w, placement});
      return this;
    }

    /** Record running workloads before any ResourceFlavor, Topology or node is known. */
    Case recordFirst() {
      recordFirst = true;
      return this;
    }

    Case pending(W... w) {
      pending.addAll(Arrays.asList(w));
      return this;
    }

    /** Changes the engine, then runs a cycle. */
    Case then(Consumer<AdmissionEngine> step) {
      steps.add(step);
      return this;
    }

    private Case expect(Consumer<Outcome> e) {
      steps.add(new Expectation(e));
      return this;
    }

    private record Expectation(Consumer<Outcome> check) {}

    Case check(Consumer<Outcome> e) {
      return expect(e);
    }

    Case admits(String... names) {
      return expect(o -> assertThat(o.names()).as("admitted").containsExactlyInAnyOrder(names));
    }

    Case admitsInOrder(String... names) {
      return expect(o -> assertThat(o.names()).as("admission order").containsExactly(names));
    }

    Case placed(String workload, String podSet, String expected) {
      return expect(
          o -> {
            TopologyAssignment a = o.podSet(workload, podSet).topologyAssignment();
            assertThat(a).as("topologyAssignment of %s/%s", workload, podSet).isNotNull();
            assertThat(render(a))
                .as("topologyAssignment of %s/%s", workload, podSet)
                .isEqualTo(expected);
          });
    }

    /** The podSet's pods under a domain ("b1", "b1/r2"). */
    Case podsIn(String workload, String podSet, String domain, int pods) {
      return expect(
          o -> {
            int n =
                o.podSet(workload, podSet).topologyAssignment().domains().stream()
                    .filter(d -> (String.join("/", d.values()) + "/").startsWith(domain + "/"))
                    .mapToInt(TopologyAssignment.Domain::count)
                    .sum();
            assertThat(n).as("pods of %s/%s in %s", workload, podSet, domain).isEqualTo(pods);
          });
    }

    Case noPlacement(String workload, String podSet) {
      return expect(
          o ->
              assertThat(o.podSet(workload, podSet).topologyAssignment())
                  .as("topologyAssignment of %s/%s", workload, podSet)
                  .isNull());
    }

    Case count(String workload, String podSet, int count) {
      return expect(
          o -> assertThat(o.podSet(workload, podSet).count()).as("count").isEqualTo(count));
    }

    Case flavorOf(String workload, String podSet, String flavor) {
      return expect(
          o -> assertThat(o.podSet(workload, podSet).flavors()).containsEntry(GPU, flavor));
    }

    Case pendingWith(String workload, PendingReason reason, String messagePart) {
      return expect(
          o -> {
            PendingStatus s = o.engine().status().pendingStatus(workload);
            assertThat(s)
                .as("pending status of %s (admitted: %s)", workload, o.names())
                .isNotNull();
            assertThat(s.reason()).as("reason of %s (%s)", workload, s.message()).isEqualTo(reason);
            assertThat(s.message()).as("message of " + workload).contains(messagePart);
            CycleResult last = o.cycles().get(o.cycles().size() - 1);
            if (last.pendingReasons().containsKey(workload)) {
              assertThat(last.pendingReasons().get(workload))
                  .as("cycle's reason of " + workload)
                  .isEqualTo(s);
            }
          });
    }

    /** Free GPUs of a domain ("" = the whole topology) in the flavor's inventory. */
    Case free(String flavor, String domain, long gpus) {
      return expect(
          o -> {
            List<String> values = domain.isEmpty() ? List.of() : List.of(domain.split("/"));
            assertThat(o.engine().topologyInventories().get(flavor).freeOf(values))
                .as("free in %s %s", flavor, domain)
                .containsEntry(GPU, gpus);
          });
    }

    /** The workload's eviction was requested in some cycle so far. */
    Case evicts(String workload) {
      return expect(
          o ->
              assertThat(o.cycles().stream().flatMap(c -> c.evictions().stream()))
                  .as("evictions")
                  .anyMatch(ev -> ev.workloadUid().equals(workload)));
    }

    Case noEvictions() {
      return expect(
          o ->
              assertThat(o.cycles().stream().flatMap(c -> c.evictions().stream()))
                  .as("evictions")
                  .isEmpty());
    }

    Case evaluationsInLastCycle(int n) {
      return expect(
          o -> {
            CycleResult last = o.cycles().get(o.cycles().size() - 1);
            assertThat(last.evaluations()).as("evaluations").isEqualTo(n);
            assertThat(last.admissions()).as("admissions of the last cycle").isEmpty();
          });
    }

    @SuppressWarnings("unchecked")
    void run() {
      AdmissionEngine engine = new AdmissionEngine();
      if (recordFirst) {
        record(engine);
      }
      flavors.forEach(engine::upsertResourceFlavor);
      topologies.forEach(engine::upsertTopology);
      nodes.values().forEach(n -> engine.upsertNode(n.build()));
      for (Bound b : bound) {
        engine.upsertBoundPod(b.uid, b.node, b.subDomain, b.requests);
      }
      engine.upsertClusterQueue(strict ? queue.strictFifo().build() : queue.build());
      engine.upsertNamespace("default", Map.of());
      engine.upsertLocalQueue(Builders.localQueue("lq", "cq"));
      if (!recordFirst) {
        record(engine);
      }
      pending.forEach(w -> engine.upsertWorkload(w.build()));
      List<Admission> admissions = new ArrayList<>();
      List<CycleResult> cycles = new ArrayList<>();
      long now = 1000;
      CycleResult r = engine.runCycle(now);
      cycles.add(r);
      admissions.addAll(r.admissions());
      Outcome o = new Outcome(engine, admissions, cycles);
      for (Object step : steps) {
        if (step instanceof Expectation e) {
          e.check().accept(o);
        } else {
          ((Consumer<AdmissionEngine>) step).accept(engine);
          r = engine.runCycle(++now);
          cycles.add(r);
          admissions.addAll(r.admissions());
        }
      }
    }

    private void record(AdmissionEngine engine) {
      for (Object[] r : running) {
        Workload w = ((W) r[0]).build();
        PodSet ps = w.podSets().get(0);
        long gpus = ps.requests().get(GPU);
        TopologyAssignment a = parse(DEFAULT, (String) r[1]);
        PodSetAssignment psa =
            new PodSetAssignment(
                ps.name(),
                Map.of(GPU, "h100"),
                Map.of(GPU, gpus * a.podCount()),
                a.podCount(),
                Map.of(),
                a);
        engine.recordAdmitted(w, "cq", List.of(psa), 0);
      }
    }

    @Override
    public String toString() {
      return name;
    }
  }
}
