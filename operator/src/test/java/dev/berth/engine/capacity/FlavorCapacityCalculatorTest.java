package dev.berth.engine.capacity;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.engine.quota.Quantity;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class FlavorCapacityCalculatorTest {
  private static final String GPU = "nvidia.com/gpu";
  private static final Map<String, String> H100 = Map.of("gpu", "h100");
  private final FlavorCapacityCalculator calculator =
      new FlavorCapacityCalculator(
          Set.of("node.kubernetes.io/unreachable", "berth.dev/maintenance"));
  private CapacityInventory inventory;

  @BeforeEach
  void setUp() {
    inventory = new CapacityInventory();
  }

  @Test
  void physicalCountsEveryMatchingNodeAndAllocatableOnlyTheUsableOnes() {
    inventory.upsertNode(node("ok-1").build());
    inventory.upsertNode(node("ok-2").build());
    inventory.upsertNode(node("down").ready(false).build());
    inventory.upsertNode(node("cordoned").unschedulable().build());
    inventory.upsertNode(node("drained").taint("berth.dev/maintenance").build());
    inventory.upsertNode(node("own-taint").taint(GPU).build());
    inventory.upsertNode(node("a100").label("gpu", "a100").build());

    FlavorCapacity c = calculator.compute(flavor(Map.of()), QuotaFigures.none(), inventory);

    assertThat(c.nodes()).isEqualTo(6);
    assertThat(c.allocatableNodes()).isEqualTo(3);
    assertThat(c.unusableNodes())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "down", "NotReady",
                "cordoned", "Cordoned",
                "drained", "Tainted berth.dev/maintenance"));
    var gpu = c.resource(GPU);
    assertThat(gpu.physical()).isEqualTo(6 * 8);
    assertThat(gpu.allocatable())
        .as("ok-1, ok-2 and own-taint (a taint not configured)")
        .isEqualTo(3 * 8);
    // Capacity 96 cores per node but the kubelet keeps 2 of each: allocatable is 94.
    assertThat(c.resource("cpu").physical()).isEqualTo(6 * 96_000);
    assertThat(c.resource("cpu").allocatable()).isEqualTo(3 * 94_000);
    assertThat(c.resources())
        .extracting(FlavorCapacity.ResourceCapacity::resource)
        .as("pods and ephemeral-storage are left out unless quota names them")
        .containsExactly("cpu", "memory", GPU);
  }

  @Test
  void platformReservationIsTakenFromAllocatableButNeverBelowZero() {
    inventory.upsertNode(node("n1").build());
    inventory.upsertNode(node("n2").build());

    FlavorCapacity c =
        calculator.compute(
            flavor(Map.of(GPU, 4L, "memory", 1L << 50)), QuotaFigures.none(), inventory);

    assertThat(c.resource(GPU).allocatable()).isEqualTo(12);
    assertThat(c.resource(GPU).platformReserved()).isEqualTo(4);
    assertThat(c.resource(GPU).physical()).isEqualTo(16);
    assertThat(c.resource("memory").allocatable()).isZero();
  }

  @Test
  void committedAboveAllocatableIsOverCommittedWithItsRatio() {
    inventory.upsertNode(node("n1").build());
    inventory.upsertNode(node("n2").build());
    inventory.upsertNode(node("n3").ready(false).build());
    QuotaFigures quota =
        new QuotaFigures(Map.of(GPU, 24L, "cpu", 100_000L), Map.of(GPU, 20L), Map.of(GPU, 18L));

    FlavorCapacity c = calculator.compute(flavor(Map.of()), quota, inventory);

    var gpu = c.resource(GPU);
    assertThat(gpu.committed()).isEqualTo(24);
    assertThat(gpu.borrowingPeak()).isEqualTo(20);
    assertThat(gpu.reserved()).isEqualTo(18);
    assertThat(gpu.allocatable()).isEqualTo(16);
    assertThat(gpu.overCommitRatio()).isEqualTo(1.5);
    assertThat(c.overCommitted())
        .extracting(FlavorCapacity.ResourceCapacity::resource)
        .containsExactly(GPU);
    assertThat(c.shortOfReserved())
        .extracting(FlavorCapacity.ResourceCapacity::resource)
        .as("18 GPUs reserved, 16 usable")
        .containsExactly(GPU);
    assertThat(c.resource("cpu").overCommitted()).isFalse();
  }

  @Test
  void draDevicesCountAsTheNodesCapacityAndTheirWithdrawalLowersAllocatable() {
    String dra = "example.com/gpu";
    inventory.upsertNode(node("n1").build());
    inventory.upsertNode(node("n2").build());
    inventory.upsertNode(node("down").ready(false).build());
    inventory.upsertNode(node("a100").label("gpu", "a100").build());
    inventory.devices("n1", Map.of(dra, 4L));
    inventory.devices("n2", Map.of(dra, 4L));
    inventory.devices("down", Map.of(dra, 4L));
    inventory.devices("a100", Map.of(dra, 4L));
    QuotaFigures quota = new QuotaFigures(Map.of(dra, 8L), Map.of(dra, 8L), Map.of(dra, 6L));

    var before = calculator.compute(flavor(Map.of()), quota, inventory).resource(dra);
    assertThat(before.physical()).as("n1, n2 and down; a100 is not the flavor's").isEqualTo(12);
    assertThat(before.allocatable()).as("n1 and n2").isEqualTo(8);
    assertThat(before.overCommitted()).isFalse();

    // The driver stops publishing n2's slice.
    assertThat(inventory.devices("n2", Map.of())).isTrue();
    FlavorCapacity after = calculator.compute(flavor(Map.of()), quota, inventory);
    assertThat(after.resource(dra).physical()).isEqualTo(8);
    assertThat(after.resource(dra).allocatable()).isEqualTo(4);
    assertThat(after.overCommitted())
        .extracting(FlavorCapacity.ResourceCapacity::resource)
        .containsExactly(dra);
    assertThat(after.shortOfReserved())
        .extracting(FlavorCapacity.ResourceCapacity::resource)
        .as("6 reserved, 4 published on usable nodes")
        .containsExactly(dra);
  }

  @Test
  void ratioIsInfiniteWhenQuotaIsCommittedOnNoCapacityAndZeroOnNeither() {
    QuotaFigures quota = new QuotaFigures(Map.of(GPU, 8L), Map.of(), Map.of());

    FlavorCapacity c = calculator.compute(flavor(Map.of()), quota, inventory);

    assertThat(c.nodes()).isZero();
    assertThat(c.resource(GPU).overCommitRatio()).isInfinite();
    assertThat(
            new FlavorCapacity.ResourceCapacity("x", 0, 0, 0, 0, 0, 0, 0, false).overCommitRatio())
        .isZero();
  }

  @Test
  void inUseSumsTheRunningPodsBoundToMatchingNodesAndForgetsFinishedOnes() {
    inventory.upsertNode(node("n1").build());
    inventory.upsertNode(node("n2").ready(false).build());
    inventory.upsertNode(node("other").label("gpu", "a100").build());
    inventory.upsertPod("p1", "n1", Map.of(GPU, 4L));
    inventory.upsertPod("p2", "n2", Map.of(GPU, 2L));
    inventory.upsertPod("p3", "other", Map.of(GPU, 8L));
    inventory.upsertPod("p1", "n1", Map.of(GPU, 3L));

    assertThat(
            calculator
                .compute(flavor(Map.of()), QuotaFigures.none(), inventory)
                .resource(GPU)
                .inUse())
        .as("p1 (now 3) and p2 on a NotReady node")
        .isEqualTo(5);

    inventory.deletePod("p1");
    inventory.deletePod("p2");
    inventory.deletePod("p2");
    assertThat(
            calculator
                .compute(flavor(Map.of()), QuotaFigures.none(), inventory)
                .resource(GPU)
                .inUse())
        .isZero();
  }

  @Test
  void migProfilesAreCountedAsPublishedNeverFoldedIntoGpus() {
    inventory.upsertNode(
        node("mig-1")
            .without(GPU)
            .resource("nvidia.com/mig-1g.10gb", 7)
            .resource("nvidia.com/mig-3g.40gb", 2)
            .build());
    inventory.upsertNode(node("mig-2").without(GPU).resource("nvidia.com/mig-1g.10gb", 7).build());

    FlavorCapacity c = calculator.compute(flavor(Map.of()), QuotaFigures.none(), inventory);

    assertThat(c.resource(GPU)).as("no whole GPU is published, none is made up").isNull();
    assertThat(c.resource("nvidia.com/mig-1g.10gb").physical()).isEqualTo(14);
    assertThat(c.resource("nvidia.com/mig-3g.40gb").allocatable()).isEqualTo(2);
    assertThat(c.sharing()).as("MIG slices are exclusive devices").isNull();
    assertThat(c.resource("nvidia.com/mig-1g.10gb").shared()).isFalse();
  }

  @Test
  void timeSlicedGpusAreSharesMarkedSharedAndCountedAsPublished() {
    // 2 nodes of 4 devices, 4 replicas each: the device plugin publishes 16 nvidia.com/gpu.
    for (String n : new String[] {"ts-1", "ts-2"}) {
      inventory.upsertNode(
          node(n)
              .resource(GPU, 16)
              .label(FlavorCapacityCalculator.SHARING_STRATEGY_LABEL, "time-slicing")
              .label(FlavorCapacityCalculator.REPLICAS_LABEL, "4")
              .build());
    }

    FlavorCapacity c = calculator.compute(flavor(Map.of()), QuotaFigures.none(), inventory);

    assertThat(c.sharing()).isEqualTo(new FlavorCapacity.Sharing("time-slicing", 4));
    assertThat(c.resource(GPU).physical()).isEqualTo(32);
    assertThat(c.resource(GPU).shared()).isTrue();
    assertThat(c.resource("cpu").shared()).isFalse();
  }

  @Test
  void renamedSharedGpusAndMixedStrategiesAreShared() {
    inventory.upsertNode(node("renamed").without(GPU).resource("nvidia.com/gpu.shared", 8).build());
    FlavorCapacity renamed = calculator.compute(flavor(Map.of()), QuotaFigures.none(), inventory);
    assertThat(renamed.resource("nvidia.com/gpu.shared").shared()).isTrue();
    assertThat(renamed.sharing()).isNotNull();

    inventory.upsertNode(
        node("ts")
            .label(FlavorCapacityCalculator.SHARING_STRATEGY_LABEL, "mps")
            .label(FlavorCapacityCalculator.REPLICAS_LABEL, "2")
            .build());
    inventory.upsertNode(
        node("ts2")
            .label(FlavorCapacityCalculator.SHARING_STRATEGY_LABEL, "time-slicing")
            .label(FlavorCapacityCalculator.REPLICAS_LABEL, "4")
            .build());
    inventory.upsertNode(
        node("plain").label(FlavorCapacityCalculator.SHARING_STRATEGY_LABEL, "none").build());
    assertThat(calculator.compute(flavor(Map.of()), QuotaFigures.none(), inventory).sharing())
        .isEqualTo(new FlavorCapacity.Sharing("mixed", null));
  }

  @Test
  void aFlavorWithoutNodeLabelsCountsEveryNodeAndRemovedNodesAreGone() {
    inventory.upsertNode(node("n1").build());
    inventory.upsertNode(node("n2").label("gpu", "a100").build());
    FlavorDefinition any = new FlavorDefinition("default", Map.of(), Map.of());

    assertThat(calculator.compute(any, QuotaFigures.none(), inventory).nodes()).isEqualTo(2);
    assertThat(inventory.deleteNode("n1")).isTrue();
    assertThat(inventory.deleteNode("n1")).isFalse();
    assertThat(calculator.compute(any, QuotaFigures.none(), inventory).resource(GPU).physical())
        .isEqualTo(8);
  }

  @Test
  void anUnchangedNodeIsNoChange() {
    assertThat(inventory.upsertNode(node("n1").build())).isTrue();
    assertThat(inventory.upsertNode(node("n1").build())).isFalse();
    assertThat(inventory.upsertNode(node("n1").ready(false).build())).isTrue();
  }

  private static FlavorDefinition flavor(Map<String, Long> reservation) {
    return new FlavorDefinition("h100", H100, reservation);
  }

  /** An H100 node: 8 GPUs, 96 cores (94 allocatable), 1 TiB, Ready and schedulable. */
  private static NodeBuilder node(String name) {
    return new NodeBuilder(name);
  }

  private static final class NodeBuilder {
    private final String name;
    private final Map<String, String> labels = new HashMap<>(H100);
    private final Map<String, Long> capacity = new LinkedHashMap<>();
    private final Map<String, Long> allocatable = new LinkedHashMap<>();
    private boolean ready = true;
    private boolean unschedulable;
    private final Set<String> taints = new java.util.HashSet<>();

    NodeBuilder(String name) {
      this.name = name;
      resource(GPU, 8);
      capacity.put("cpu", 96_000L);
      allocatable.put("cpu", 94_000L);
      resource("memory", Quantity.parse("memory", "1Ti"));
      resource("pods", 110);
      resource("ephemeral-storage", Quantity.parse("ephemeral-storage", "500Gi"));
    }

    NodeBuilder resource(String r, long v) {
      capacity.put(r, v);
      allocatable.put(r, v);
      return this;
    }

    NodeBuilder without(String r) {
      capacity.remove(r);
      allocatable.remove(r);
      return this;
    }

    NodeBuilder label(String k, String v) {
      labels.put(k, v);
      return this;
    }

    NodeBuilder ready(boolean v) {
      ready = v;
      return this;
    }

    NodeBuilder unschedulable() {
      unschedulable = true;
      return this;
    }

    NodeBuilder taint(String key) {
      taints.add(key);
      return this;
    }

    CapacityNode build() {
      return new CapacityNode(name, labels, capacity, allocatable, ready, unschedulable, taints);
    }
  }
}
