package dev.berth.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.engine.model.PodSet;
import dev.berth.engine.model.ResourceFlavor;
import dev.berth.engine.model.Workload;
import dev.berth.engine.topology.NodeInventory;
import dev.berth.engine.topology.Topology;
import dev.berth.engine.topology.TopologyAssignment;
import dev.berth.engine.topology.TopologyNode;
import dev.berth.engine.topology.TopologyRequest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.From;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * Random GPU clusters (node capacities, pods already bound) and streams of topology-aware workloads
 * admitted over many cycles, with finishes, evictions, rollbacks, pods binding and leaving, and
 * nodes cordoned and uncordoned. After every step: no node, and so no rack, holds more placed pods
 * than its allocatable minus its bound pods; every required-rack podSet lies in one rack with its
 * whole count; the engine's free capacity per domain equals allocatable − bound − placed; and the
 * same inputs give the same decisions.
 */
class TopologyAdmissionProperties {
  private static final String GPU = TopologyAdmissionTest.GPU;
  private static final Topology TOPOLOGY = TopologyAdmissionTest.DEFAULT;

  /**
   * 0-3 add, 4-5 cycle, 6 finish, 7 evict, 8 rollback, 9 bind a pod, 10 a pod leaves, 11 cordon.
   */
  record Op(int kind, int a, int b, int c) {}

  @Provide
  Arbitrary<Op> op() {
    return Combinators.combine(
            Arbitraries.integers().between(0, 11),
            Arbitraries.integers().between(0, 1000),
            Arbitraries.integers().between(0, 1000),
            Arbitraries.integers().between(0, 1000))
        .as(Op::new);
  }

  @Property(tries = 300)
  void placementsNeverOverbookAndRequiredRackStaysInOneRack(
      @ForAll @IntRange(min = 1, max = 2) int blocks,
      @ForAll @IntRange(min = 1, max = 3) int racks,
      @ForAll @IntRange(min = 1, max = 4) int nodesPerRack,
      @ForAll @Size(min = 1, max = 24) List<@IntRange(min = 0, max = 8) Integer> gpus,
      @ForAll boolean strictFifo,
      @ForAll @Size(min = 1, max = 80) List<@From("op") Op> ops) {
    List<String> first = new Run(blocks, racks, nodesPerRack, gpus, strictFifo).play(ops);
    List<String> second = new Run(blocks, racks, nodesPerRack, gpus, strictFifo).play(ops);
    assertThat(second).as("same inputs, same decisions").isEqualTo(first);
  }

  /** One replay of a stream against a fresh engine, with its own account of where GPUs are. */
  private static final class Run {
    private final AdmissionEngine engine = new AdmissionEngine();
    private final Map<String, TopologyNode> nodes = new LinkedHashMap<>();

    /** Bound pod UID to node and GPUs. */
    private final Map<String, Map.Entry<String, Long>> bound = new LinkedHashMap<>();

    private final Map<String, Workload> specs = new LinkedHashMap<>();
    private final Map<String, Admission> admitted = new LinkedHashMap<>();
    private final List<String> log = new ArrayList<>();
    private Admission lastAdmission;
    private int next;
    private long now;

    Run(int blocks, int racks, int nodesPerRack, List<Integer> gpus, boolean strictFifo) {
      engine.upsertResourceFlavor(
          new ResourceFlavor("h100", Map.of(), List.of(), List.of(), TOPOLOGY.name()));
      engine.upsertTopology(TOPOLOGY);
      int i = 0;
      for (int b = 1; b <= blocks; b++) {
        for (int r = 1; r <= racks; r++) {
          for (int n = 1; n <= nodesPerRack; n++) {
            TopologyNode node =
                TopologyAdmissionTest.gpuNode(
                        "b" + b + "-r" + r + "-n" + n,
                        "b" + b,
                        "r" + r,
                        gpus.get(i++ % gpus.size()))
                    .build();
            nodes.put(node.name(), node);
            engine.upsertNode(node);
          }
        }
      }
      Builders.QueueBuilder cq = Builders.clusterQueue("cq").flavor("h100").res(GPU, "1000");
      engine.upsertClusterQueue(strictFifo ? cq.strictFifo().build() : cq.build());
      engine.upsertNamespace("default", Map.of());
      engine.upsertLocalQueue(Builders.localQueue("lq", "cq"));
    }

    List<String> play(List<Op> ops) {
      for (Op op : ops) {
        now += 10;
        step(op);
        checkInvariants();
      }
      cycle();
      checkInvariants();
      return log;
    }

    private void step(Op op) {
      switch (op.kind()) {
        case 0, 1, 2, 3 -> add(op);
        case 6 ->
            pick(admitted, op.a())
                .ifPresent(
                    uid -> {
                      engine.workloadFinished(uid);
                      admitted.remove(uid);
                      log.add("finish " + uid);
                    });
        case 7 ->
            pick(admitted, op.a())
                .ifPresent(
                    uid -> {
                      engine.workloadEvicted(uid, now);
                      admitted.remove(uid);
                      log.add("evict " + uid);
                    });
        case 8 -> {
          if (lastAdmission != null && admitted.containsKey(lastAdmission.workloadUid())) {
            assertThat(engine.rollback(lastAdmission)).isTrue();
            admitted.remove(lastAdmission.workloadUid());
            log.add("rollback " + lastAdmission.workloadUid());
          }
        }
        case 9 -> bind(op);
        case 10 ->
            pick(bound, op.a())
                .ifPresent(
                    uid -> {
                      engine.deleteBoundPod(uid);
                      bound.remove(uid);
                      log.add("pod gone " + uid);
                    });
        case 11 ->
            pick(nodes, op.a())
                .ifPresent(
                    name -> {
                      TopologyNode n = nodes.get(name);
                      TopologyNode flipped =
                          new TopologyNode(
                              n.name(),
                              n.labels(),
                              n.allocatable(),
                              n.ready(),
                              !n.unschedulable(),
                              n.taints(),
                              n.subDomains());
                      nodes.put(name, flipped);
                      engine.upsertNode(flipped);
                      log.add("cordon " + name + " " + flipped.unschedulable());
                    });
        default -> cycle();
      }
    }

    private void add(Op op) {
      String uid = "w" + next++;
      List<PodSet> podSets = new ArrayList<>();
      int sets = op.b() % 3 == 0 ? 2 : 1;
      for (int s = 0; s < sets; s++) {
        int count = 1 + (op.a() + s) % 4;
        long perPod = 1 + (op.b() + 3L * s) % 8;
        TopologyRequest request =
            switch ((op.c() + s) % 6) {
              case 4 -> TopologyRequest.preferred(TopologyAdmissionTest.RACK);
              case 5 -> TopologyRequest.unconstrained();
              default -> TopologyRequest.required(TopologyAdmissionTest.RACK);
            };
        podSets.add(
            new PodSet("ps" + s, count, null, Map.of(GPU, perPod), null, null, null, request));
      }
      Workload w = new Workload(uid, "default", uid, "lq", op.c() % 3, now, podSets);
      specs.put(uid, w);
      engine.upsertWorkload(w);
      log.add("add " + uid);
    }

    /** A pod binds only where the node really has room: the kubelet would reject it otherwise. */
    private void bind(Op op) {
      pick(nodes, op.a())
          .ifPresent(
              name -> {
                long free = nodes.get(name).allocatable().get(GPU) - boundOn(name) - placedOn(name);
                if (free > 0) {
                  String uid = "p" + next++;
                  long gpus = 1 + op.b() % free;
                  bound.put(uid, Map.entry(name, gpus));
                  engine.upsertBoundPod(uid, name, Map.of(GPU, gpus));
                  log.add("bind " + uid + " " + name + " " + gpus);
                }
              });
    }

    private void cycle() {
      CycleResult r = engine.runCycle(now);
      for (Admission a : r.admissions()) {
        admitted.put(a.workloadUid(), a);
        lastAdmission = a;
        StringBuilder sb = new StringBuilder("admit " + a.workloadUid());
        for (PodSetAssignment ps : a.podSetAssignments()) {
          sb.append(' ')
              .append(ps.name())
              .append(ps.topologyAssignment() == null ? "" : ps.topologyAssignment().domains());
        }
        log.add(sb.toString());
      }
      r.pendingReasons()
          .forEach((uid, s) -> log.add("pending " + uid + " " + s.reason() + " " + s.message()));
    }

    private long boundOn(String node) {
      return bound.values().stream()
          .filter(e -> e.getKey().equals(node))
          .mapToLong(Map.Entry::getValue)
          .sum();
    }

    private long placedOn(String node) {
      long sum = 0;
      for (Admission a : admitted.values()) {
        Workload w = specs.get(a.workloadUid());
        for (PodSetAssignment ps : a.podSetAssignments()) {
          long perPod =
              w.podSets().stream()
                  .filter(p -> p.name().equals(ps.name()))
                  .findFirst()
                  .orElseThrow()
                  .requests()
                  .get(GPU);
          for (TopologyAssignment.Domain d : ps.topologyAssignment().domains()) {
            if (d.values().get(2).equals(node)) {
              sum += perPod * d.count();
            }
          }
        }
      }
      return sum;
    }

    private void checkInvariants() {
      Map<String, long[]> racks = new LinkedHashMap<>();
      for (TopologyNode n : nodes.values()) {
        long alloc = n.allocatable().get(GPU);
        long placed = placedOn(n.name());
        assertThat(placed)
            .as("GPUs placed on %s (allocatable %d, bound %d)", n.name(), alloc, boundOn(n.name()))
            .isLessThanOrEqualTo(alloc - boundOn(n.name()));
        long[] rack = racks.computeIfAbsent(rackOf(n), k -> new long[2]);
        rack[0] += alloc - boundOn(n.name());
        rack[1] += placed;
      }
      racks.forEach(
          (rack, v) ->
              assertThat(v[1]).as("GPUs placed in rack %s", rack).isLessThanOrEqualTo(v[0]));
      for (Admission a : admitted.values()) {
        Workload w = specs.get(a.workloadUid());
        for (PodSetAssignment ps : a.podSetAssignments()) {
          TopologyAssignment t = ps.topologyAssignment();
          assertThat(t).as("topologyAssignment of %s/%s", a.workloadUid(), ps.name()).isNotNull();
          assertThat(t.podCount())
              .as("pods placed of %s/%s", a.workloadUid(), ps.name())
              .isEqualTo(ps.count());
          PodSet spec =
              w.podSets().stream()
                  .filter(p -> p.name().equals(ps.name()))
                  .findFirst()
                  .orElseThrow();
          if (spec.topologyRequest().mode() == TopologyRequest.Mode.REQUIRED) {
            assertThat(t.domains().stream().map(d -> d.values().subList(0, 2)).distinct())
                .as("racks of required-rack %s/%s", a.workloadUid(), ps.name())
                .hasSize(1);
          }
        }
      }
      NodeInventory inv = engine.topologyInventories().get("h100");
      long total = 0;
      for (TopologyNode n : nodes.values()) {
        if (n.unschedulable()) {
          continue;
        }
        long free = n.allocatable().get(GPU) - boundOn(n.name()) - placedOn(n.name());
        total += free;
        assertThat(
                inv.freeOf(
                    List.of(
                        n.labels().get(TopologyAdmissionTest.BLOCK),
                        n.labels().get(TopologyAdmissionTest.RACK),
                        n.name())))
            .as("engine's free GPUs on %s", n.name())
            .containsEntry(GPU, free);
      }
      assertThat(inv.freeOf(List.of()).getOrDefault(GPU, 0L))
          .as("engine's free GPUs")
          .isEqualTo(total);
    }

    private static String rackOf(TopologyNode n) {
      return n.labels().get(TopologyAdmissionTest.BLOCK)
          + "/"
          + n.labels().get(TopologyAdmissionTest.RACK);
    }

    private static Optional<String> pick(Map<String, ?> m, int index) {
      if (m.isEmpty()) {
        return Optional.empty();
      }
      return Optional.of(new ArrayList<>(m.keySet()).get(index % m.size()));
    }
  }
}
