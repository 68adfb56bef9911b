package dev.berth.engine.usage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class MonthlyUsageTest {
  private static final String GPU = "nvidia.com/gpu";
  private static final UsageOwner OWNER = new UsageOwner("team-llm", "training", "llm", "cc-42");

  @Test
  void runsAreSummedPerQueueCostCentreFlavorAndResourceExactlyOnce() {
    Run train =
        run(
            "uid-1",
            0,
            3600_000,
            List.of(
                new UsageRequest("main", "h100", GPU, 16),
                new UsageRequest("main", "h100", "cpu", 192_000),
                new UsageRequest("launcher", "h100", "cpu", 500)));
    MonthlyUsage once = MonthlyUsage.none().plus(train, Map.of());
    MonthlyUsage twice = once.plus(train, Map.of());

    assertThat(twice).isEqualTo(once);
    assertThat(once.runs()).isEqualTo(1);
    MonthlyUsage.Sums cpu =
        once.entries().get(new MonthlyUsage.Key("training", "llm", "cc-42", "h100", "cpu"));
    assertThat(cpu.runs()).as("two podSets, one run").isEqualTo(1);
    assertThat(cpu.resourceSeconds()).isEqualByComparingTo("693000"); // 192.5 cores × 3600 s
    assertThat(once.total(GPU, false)).isEqualByComparingTo("57600");
    assertThat(once.measured(GPU)).isFalse();
    assertThat(once.counted())
        .containsEntry("uid-1", new MonthlyUsage.Counted("team-llm/uid-1", 0));
  }

  @Test
  void aWorkloadsLaterRunIsAddedAndAnEarlierOneNeverAgain() {
    MonthlyUsage usage =
        MonthlyUsage.none()
            .plus(run("uid-1", 0, 600_000, gpus(8)), Map.of())
            .plus(run("uid-1", 900_000, 1_500_000, gpus(8)), Map.of());

    assertThat(usage.runs()).isEqualTo(2);
    assertThat(usage.total(GPU, false)).isEqualByComparingTo("9600");
    assertThat(usage.plus(run("uid-1", 0, 600_000, gpus(8)), Map.of())).isEqualTo(usage);
  }

  @Test
  void measuredRunsCarryTheirUseNextToWhatTheyRequested() {
    var key = new UsageTotals.Key("main", "h100", GPU);
    MonthlyUsage usage =
        MonthlyUsage.none()
            .plus(run("uid-1", 0, 1000_000, gpus(8)), Map.of(key, new BigDecimal("2000")))
            .plus(run("uid-2", 0, 1000_000, gpus(8)), Map.of());

    MonthlyUsage.Sums sums =
        usage.entries().get(new MonthlyUsage.Key("training", "llm", "cc-42", "h100", GPU));
    assertThat(sums.resourceSeconds()).isEqualByComparingTo("16000");
    assertThat(sums.measuredResourceSeconds()).as("uid-1 only").isEqualByComparingTo("8000");
    assertThat(sums.usedResourceSeconds()).isEqualByComparingTo("2000");
    assertThat(usage.measured(GPU)).isTrue();
  }

  @Test
  void theOldestCountedWorkloadsCanBeForgottenWithoutTouchingTheSums() {
    MonthlyUsage usage =
        MonthlyUsage.none()
            .plus(run("late", 5000, 9000, gpus(1)), Map.of())
            .plus(run("early", 1000, 9000, gpus(1)), Map.of());

    assertThat(usage.oldestCounted(1)).containsExactly("early");
    MonthlyUsage pruned = usage.forgetting(Set.of("early"));
    assertThat(pruned.counted()).containsOnlyKeys("late");
    assertThat(pruned.entries()).isEqualTo(usage.entries());
  }

  @Test
  void anOpenRunCannotBeAdded() {
    Run open = new Run("uid", "ns/uid", OWNER, 0, null, gpus(1));
    assertThatThrownBy(() -> MonthlyUsage.none().plus(open, Map.of()))
        .hasMessageContaining("has not ended");
  }

  private static List<UsageRequest> gpus(int n) {
    return List.of(new UsageRequest("main", "h100", GPU, n));
  }

  private static Run run(String uid, long start, long end, List<UsageRequest> requests) {
    return new Run(uid, "team-llm/" + uid, OWNER, start, end, requests);
  }
}
