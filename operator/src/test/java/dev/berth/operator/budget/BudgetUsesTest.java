package dev.berth.operator.budget;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.api.v1beta1.Budget;
import dev.berth.api.v1beta1.BudgetStatus;
import dev.berth.api.v1beta1.BudgetWhenExhausted;
import dev.berth.api.v1beta1.UsageReportStatus;
import dev.berth.engine.model.SpentBudgets;
import dev.berth.engine.usage.Run;
import dev.berth.engine.usage.UsageOwner;
import dev.berth.engine.usage.UsageRequest;
import dev.berth.testing.Budgets;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * What one evaluation of the budget book gives besides the Budget's status: the spent budgets that
 * let their workloads run on idle capacity (for the engine), and each budget's window as the
 * UsageReports of the runs it charges show it, the same figures as its status.
 */
class BudgetUsesTest {
  private static final String GPU = "nvidia.com/gpu";
  private static final UsageOwner TRAIN = new UsageOwner("team-llm", "train", "llm", "cc-1");
  private static final UsageOwner OTHER = new UsageOwner("team-cv", "train", "cv", "cc-2");
  private static final Instant NOW = Instant.parse("2026-12-20T00:00:00Z");

  private static Budget budget(String name, String hours, BudgetWhenExhausted when) {
    Budget b =
        Budgets.named(name)
            .localQueue("team-llm", "train")
            .monthly("UTC")
            .hours(GPU, hours)
            .build();
    b.getSpec().whenExhausted = when;
    return b;
  }

  /** 10 GPU-hours of team-llm/train ended at NOW. */
  private static BudgetBook spentTenHours(Budget... budgets) {
    BudgetBook book = new BudgetBook();
    for (Budget b : budgets) {
      book.upsert(b, NOW);
    }
    book.ended(
        new Run(
            "a",
            "team-llm/a",
            TRAIN,
            NOW.toEpochMilli() - 3_600_000L,
            NOW.toEpochMilli(),
            List.of(new UsageRequest("main", "h100", GPU, 10))));
    return book;
  }

  @Test
  void aSpentBudgetThatRunsOnIdleCapacitySaysSoToTheEngine() {
    BudgetBook.Evaluation e =
        spentTenHours(budget("idle", "5", BudgetWhenExhausted.RunOnIdleCapacity))
            .evaluate(NOW, List.of());
    String message = e.states().get(0).message();
    assertThat(e.spent())
        .isEqualTo(
            new SpentBudgets(
                Map.of("team-llm/train", message), Map.of(), Map.of(), Set.of(message)));
    assertThat(e.spent().holdFor("team-llm/train", "llm", "cc-1"))
        .isEqualTo(new SpentBudgets.Hold(message, true));
  }

  @Test
  void aSpentBudgetThatWaitsWinsOverOneThatRunsOnIdleCapacityWhateverTheirNames() {
    BudgetBook.Evaluation e =
        spentTenHours(
                budget("a-idle", "5", BudgetWhenExhausted.RunOnIdleCapacity),
                budget("b-wait", "5", null))
            .evaluate(NOW, List.of());
    SpentBudgets.Hold hold = e.spent().holdFor("team-llm/train", "llm", "cc-1");
    assertThat(hold.idleCapacityOnly()).isFalse();
    assertThat(hold.message()).startsWith("Budget b-wait ");
  }

  @Test
  void aUsageReportShowsTheBudgetsChargingItsRunsAsTheirStatusHasThem() {
    BudgetBook.Evaluation e = spentTenHours(budget("llm", "20", null)).evaluate(NOW, List.of());
    BudgetState state = e.states().get(0);

    assertThat(BudgetPublisher.uses(e.states(), List.of(OTHER))).isEmpty();
    List<UsageReportStatus.BudgetUse> uses =
        BudgetPublisher.uses(e.states(), List.of(OTHER, TRAIN));
    assertThat(uses).hasSize(1);
    UsageReportStatus.BudgetUse use = uses.get(0);
    assertThat(use.name).isEqualTo("llm");
    assertThat(use.target).isEqualTo("LocalQueue team-llm/train");
    BudgetStatus status = BudgetStatusWriter.status(state);
    status.counted = null;
    assertThat(use.status).usingRecursiveComparison().isEqualTo(status);
    assertThat(use.status.window).isEqualTo("2026-12");
    assertThat(use.status.windowStart).isEqualTo("2026-12-01T00:00:00Z");
    assertThat(use.status.resetsAt).isEqualTo("2027-01-01T00:00:00Z");
    assertThat(use.status.exhausted).isFalse();
    assertThat(use.status.resources)
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.resource).isEqualTo(GPU);
              assertThat(new BigDecimal(r.usedHours)).isEqualByComparingTo("10");
              assertThat(new BigDecimal(r.limitHours)).isEqualByComparingTo("20");
            });
  }
}
