package dev.berth.operator.usage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.api.v1beta1.Admission;
import dev.berth.api.v1beta1.Condition;
import dev.berth.api.v1beta1.PodSetAssignment;
import dev.berth.api.v1beta1.Workload;
import dev.berth.api.v1beta1.WorkloadSpec;
import dev.berth.api.v1beta1.WorkloadStatus;
import dev.berth.engine.usage.Run;
import dev.berth.engine.usage.UsageRequest;
import dev.berth.engine.usage.UsageTotals;
import dev.berth.engine.usage.WorkloadObservation;
import io.fabric8.kubernetes.api.model.Quantity;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class UsageTranslatorTest {
  private static final String T0 = "2026-12-01T10:00:00.123456789Z";
  private static final String T1 = "2026-12-01T11:10:00.5Z";

  @Test
  void aReservedWorkloadIsReadWithItsRequestsPerPodSetAndFlavor() {
    Workload wl = workload(true);
    wl.getMetadata().setLabels(Map.of(UsageTranslator.COST_CENTRE_LABEL, "cc-own"));

    WorkloadObservation o = UsageTranslator.observation(wl, "cc-namespace");

    assertThat(o.reservedAt())
        .as("to the millisecond")
        .isEqualTo(Instant.parse("2026-12-01T10:00:00.123Z").toEpochMilli());
    assertThat(o.finishedAt()).isNull();
    assertThat(o.owner().costCentre()).as("the Workload's label wins").isEqualTo("cc-own");
    assertThat(o.owner().clusterQueue()).isEqualTo("llm");
    assertThat(o.owner().localQueue()).isEqualTo("training");
    assertThat(o.requests())
        .containsExactlyInAnyOrder(
            new UsageRequest("main", "h100", "nvidia.com/gpu", 16),
            new UsageRequest("main", "h100", "cpu", 192_500));
  }

  @Test
  void theNamespaceCostCentreAppliesWhenTheWorkloadHasNoneAndAReleaseIsDated() {
    Workload wl = workload(false);

    WorkloadObservation o = UsageTranslator.observation(wl, "cc-namespace");

    assertThat(o.owner().costCentre()).isEqualTo("cc-namespace");
    assertThat(o.reservedAt()).isNull();
    assertThat(o.releasedAt()).isEqualTo(Instant.parse(T1).toEpochMilli());
    assertThat(UsageTranslator.observation(wl, null).owner().costCentre()).isEmpty();
  }

  @Test
  void totalsSurviveTheRoundTripThroughStatusUsage() {
    long start = Instant.parse(T0).toEpochMilli();
    long end = Instant.parse(T1).toEpochMilli();
    Run run =
        new Run(
            "u",
            "ns/wl",
            null,
            start,
            end,
            List.of(new UsageRequest("main", "h100", "cpu", 192_500)));
    UsageTotals totals = UsageTotals.none().plus(run);

    var api = UsageTranslator.toApi(totals);
    assertThat(api.runs).isEqualTo(1);
    assertThat(api.occupiedSeconds).isEqualTo("4200.377");
    assertThat(api.resources)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.requested).isEqualTo("192500m");
              assertThat(e.resourceSeconds).as("192.5 cores × 4200.377 s").isEqualTo("808572.5725");
            });
    UsageTotals back = UsageTranslator.totals(api);
    assertThat(back)
        .usingRecursiveComparison()
        .withComparatorForType(java.math.BigDecimal::compareTo, java.math.BigDecimal.class)
        .isEqualTo(totals);
    assertThat(back.counts(run)).isTrue();
  }

  private static Workload workload(boolean reserved) {
    Workload wl = new Workload();
    wl.getMetadata().setName("wl");
    wl.getMetadata().setNamespace("team-llm");
    wl.getMetadata().setUid("uid-1");
    wl.setSpec(new WorkloadSpec());
    wl.getSpec().queueName = "training";
    wl.setStatus(new WorkloadStatus());
    wl.getStatus().conditions = new ArrayList<>();
    Condition c = new Condition("QuotaReserved", reserved ? "True" : "False", "x", "y");
    c.lastTransitionTime = reserved ? T0 : T1;
    wl.getStatus().conditions.add(c);
    if (reserved) {
      wl.getStatus().admission = new Admission();
      wl.getStatus().admission.clusterQueue = "llm";
      PodSetAssignment ps = new PodSetAssignment();
      ps.name = "main";
      ps.flavors = Map.of("nvidia.com/gpu", "h100", "cpu", "h100");
      ps.resourceUsage =
          Map.of("nvidia.com/gpu", new Quantity("16"), "cpu", new Quantity("192500m"));
      wl.getStatus().admission.podSetAssignments = List.of(ps);
    }
    return wl;
  }
}
