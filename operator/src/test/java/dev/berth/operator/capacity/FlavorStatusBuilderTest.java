package dev.berth.operator.capacity;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.api.v1beta1.Condition;
import dev.berth.api.v1beta1.ResourceFlavorStatus;
import dev.berth.engine.capacity.FlavorCapacity;
import dev.berth.engine.capacity.FlavorCapacity.ResourceCapacity;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class FlavorStatusBuilderTest {
  private static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");
  private static final Instant T1 = Instant.parse("2026-12-01T10:05:00Z");
  private static final long GIB = 1L << 30;

  @Test
  void figuresAreWrittenAsQuantitiesInTheResourcesUnits() {
    ResourceFlavorStatus s =
        FlavorStatusBuilder.build(
            flavor(
                Map.of(),
                new ResourceCapacity(
                    "cpu", 192_000, 187_500, 500, 96_000, 96_000, 1_500, 250, false),
                new ResourceCapacity(
                    "memory", 2048 * GIB, 2000 * GIB, 0, 1024 * GIB, 0, 0, 0, false)),
            null,
            List.of(),
            3L,
            T0);

    var cpu = s.resources.get(0);
    assertThat(cpu.name).isEqualTo("cpu");
    assertThat(cpu.physical).isEqualTo("192");
    assertThat(cpu.allocatable).isEqualTo("187500m");
    assertThat(cpu.platformReserved).isEqualTo("500m");
    assertThat(cpu.reserved).isEqualTo("1500m");
    assertThat(cpu.inUse).isEqualTo("250m");
    assertThat(cpu.overCommitRatio).isEqualTo("0.51");
    assertThat(cpu.shared).isNull();
    assertThat(s.resources.get(1).physical).isEqualTo("2Ti");
    assertThat(s.resources.get(1).allocatable).isEqualTo("2000Gi");
    assertThat(s.observedGeneration).isEqualTo(3L);
    assertThat(s.nodes).isEqualTo(4);
    assertThat(s.allocatableNodes).isEqualTo(4);
    assertThat(condition(s, "OverCommitted").status).isEqualTo("False");
    assertThat(condition(s, "OverCommitted").reason).isEqualTo("WithinAllocatable");
    assertThat(condition(s, "CapacityShortfall").status).isEqualTo("False");
  }

  @Test
  void overCommittedAndShortfallNameTheResourceTheNodesAndTheWorkloadsAtRisk() {
    FlavorCapacity c =
        flavor(
            Map.of("n2", "Cordoned", "n3", "NotReady"),
            new ResourceCapacity("nvidia.com/gpu", 32, 14, 2, 24, 24, 16, 8, false));

    ResourceFlavorStatus s =
        FlavorStatusBuilder.build(c, null, List.of("a/wl-1", "b/wl-2"), 1L, T0);

    Condition over = condition(s, "OverCommitted");
    assertThat(over.status).isEqualTo("True");
    assertThat(over.reason).isEqualTo("NominalQuotaExceedsAllocatable");
    assertThat(over.message)
        .isEqualTo(
            "Nominal quota exceeds allocatable capacity: nvidia.com/gpu committed 24 > allocatable 14"
                + " (not allocatable: n2 Cordoned, n3 NotReady)");
    Condition shortfall = condition(s, "CapacityShortfall");
    assertThat(shortfall.reason).isEqualTo("AllocatableBelowReserved");
    assertThat(shortfall.message)
        .isEqualTo(
            "Admitted workloads hold more than the usable nodes have: nvidia.com/gpu reserved 16"
                + " > allocatable 14 (not allocatable: n2 Cordoned, n3 NotReady);"
                + " workloads at risk: a/wl-1, b/wl-2");
    assertThat(s.resources.get(0).overCommitRatio).isEqualTo("1.71");
  }

  @Test
  void longListsAreCutAfterTenNames() {
    List<String> atRisk = IntStream.range(0, 13).mapToObj(i -> "ns/wl-" + (10 + i)).toList();
    FlavorCapacity c =
        flavor(Map.of(), new ResourceCapacity("nvidia.com/gpu", 8, 0, 0, 8, 8, 8, 0, false));

    String message =
        condition(FlavorStatusBuilder.build(c, null, atRisk, 1L, T0), "CapacityShortfall").message;

    assertThat(message).endsWith("ns/wl-19 and 3 more").doesNotContain("ns/wl-20");
  }

  @Test
  void aConditionKeepsItsTransitionTimeUntilItsStatusChanges() {
    FlavorCapacity over =
        flavor(Map.of(), new ResourceCapacity("nvidia.com/gpu", 8, 8, 0, 16, 16, 0, 0, false));
    FlavorCapacity fine =
        flavor(Map.of(), new ResourceCapacity("nvidia.com/gpu", 8, 8, 0, 8, 8, 0, 0, false));

    ResourceFlavorStatus first = FlavorStatusBuilder.build(over, null, List.of(), 1L, T0);
    ResourceFlavorStatus same = FlavorStatusBuilder.build(over, first, List.of(), 1L, T1);
    ResourceFlavorStatus cleared = FlavorStatusBuilder.build(fine, same, List.of(), 1L, T1);

    assertThat(condition(same, "OverCommitted").lastTransitionTime).isEqualTo(T0.toString());
    assertThat(condition(cleared, "OverCommitted").status).isEqualTo("False");
    assertThat(condition(cleared, "OverCommitted").lastTransitionTime).isEqualTo(T1.toString());
  }

  @Test
  void ratioIsTwoDecimalsInAnyLocaleAndInfiniteWithoutCapacity() {
    Locale before = Locale.getDefault();
    try {
      Locale.setDefault(Locale.GERMANY);
      assertThat(FlavorStatusBuilder.ratio(4.0 / 3)).isEqualTo("1.33");
    } finally {
      Locale.setDefault(before);
    }
    assertThat(FlavorStatusBuilder.ratio(Double.POSITIVE_INFINITY)).isEqualTo("+Inf");
  }

  @Test
  void aSharedFlavorSaysHowItsGpusAreShared() {
    FlavorCapacity c =
        new FlavorCapacity(
            "ts",
            1,
            1,
            Map.of(),
            new FlavorCapacity.Sharing("time-slicing", 4),
            List.of(new ResourceCapacity("nvidia.com/gpu", 16, 16, 0, 0, 0, 0, 0, true)));

    ResourceFlavorStatus s = FlavorStatusBuilder.build(c, null, List.of(), 1L, T0);

    assertThat(s.shared).isTrue();
    assertThat(s.sharingStrategy).isEqualTo("time-slicing");
    assertThat(s.sharingReplicas).isEqualTo(4);
    assertThat(s.resources.get(0).shared).isTrue();
  }

  private static FlavorCapacity flavor(Map<String, String> unusable, ResourceCapacity... rs) {
    return new FlavorCapacity("h100", 4, 4 - unusable.size(), unusable, null, List.of(rs));
  }

  private static Condition condition(ResourceFlavorStatus s, String type) {
    return s.conditions.stream().filter(c -> c.type.equals(type)).findFirst().orElseThrow();
  }
}
