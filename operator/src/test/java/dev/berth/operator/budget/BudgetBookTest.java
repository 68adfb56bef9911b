package dev.berth.operator.budget;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.api.v1beta1.Budget;
import dev.berth.api.v1beta1.BudgetStatus;
import dev.berth.engine.model.SpentBudgets;
import dev.berth.engine.usage.Run;
import dev.berth.engine.usage.UsageOwner;
import dev.berth.engine.usage.UsageRequest;
import dev.berth.testing.Budgets;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Charging a budget from the usage ledger: the part of each run inside the window, running
 * workloads' time so far, each ended run once however often it is offered, a fresh start in a new
 * window, the durable record read back after a restart, and the message with numbers once spent.
 */
class BudgetBookTest {
  private static final String GPU = "nvidia.com/gpu";
  private static final UsageOwner TRAIN = new UsageOwner("team-llm", "train", "llm", "cc-1");
  private static final UsageOwner OTHER = new UsageOwner("team-cv", "train", "cv", "cc-2");
  private static final long H = 3_600_000L;

  private static long t(String instant) {
    return Instant.parse(instant).toEpochMilli();
  }

  private static Run run(String uid, UsageOwner owner, long gpus, long start, Long end) {
    return new Run(
        uid, "ns/" + uid, owner, start, end, List.of(new UsageRequest("main", "h100", GPU, gpus)));
  }

  private static Budget forLocalQueue(String hours) {
    return Budgets.named("llm")
        .localQueue("team-llm", "train")
        .monthly("UTC")
        .hours(GPU, hours)
        .build();
  }

  @Test
  void endedAndRunningWorkloadsAreChargedForTheirTimeInTheWindow() {
    BudgetBook book = new BudgetBook();
    Instant now = Instant.parse("2026-12-10T00:00:00Z");
    book.upsert(forLocalQueue("100"), now);
    // Began in November: only its December part counts (2 h × 8 GPUs).
    book.ended(run("a", TRAIN, 8, t("2026-11-30T22:00:00Z"), t("2026-12-01T02:00:00Z")));
    // Another team's run is not this budget's.
    book.ended(run("b", OTHER, 8, t("2026-12-02T00:00:00Z"), t("2026-12-02T10:00:00Z")));
    // Running for 5 h so far with 4 GPUs.
    Run open = run("c", TRAIN, 4, now.toEpochMilli() - 5 * H, null);

    BudgetState state = book.evaluate(now, List.of(open)).states().get(0);
    assertThat(state.usedHours().get(GPU)).isEqualByComparingTo("36");
    assertThat(state.limitHours().get(GPU)).isEqualByComparingTo("100");
    assertThat(state.exhausted()).isFalse();
    assertThat(state.message())
        .isEqualTo("left 64 of 100 nvidia.com/gpu-hours in 2026-12; resets 2027-01-01T00:00Z");
    assertThat(state.endedSeconds().get(GPU)).isEqualByComparingTo(BigDecimal.valueOf(16 * 3600));
  }

  @Test
  void aRunOfferedByTheLedgerAndByItsWorkloadsRecordIsChargedOnce() {
    BudgetBook book = new BudgetBook();
    Instant now = Instant.parse("2026-12-10T00:00:00Z");
    book.upsert(forLocalQueue("100"), now);
    Run ended = run("a", TRAIN, 2, t("2026-12-02T00:00:00Z"), t("2026-12-02T03:00:00Z"));
    book.ended(ended);
    book.ended(ended);
    // A second run of the same workload, later: charged too.
    book.ended(run("a", TRAIN, 2, t("2026-12-03T00:00:00Z"), t("2026-12-03T01:00:00Z")));
    // The first run again (a restart's re-offer): its start is not after the last charged one.
    book.ended(ended);
    assertThat(book.evaluate(now, List.of()).states().get(0).usedHours().get(GPU))
        .isEqualByComparingTo("8");
  }

  @Test
  void spentBudgetsNameTheirQueueWithTheNumbersAndANewWindowStartsAtZero() {
    BudgetBook book = new BudgetBook();
    Instant now = Instant.parse("2026-12-20T00:00:00Z");
    book.upsert(forLocalQueue("20000"), now);
    // 20,013.5 GPU-hours: 1,000 GPUs for 20.0135 h.
    book.ended(run("a", TRAIN, 1000, now.toEpochMilli() - 72_048_600L, now.toEpochMilli()));
    BudgetBook.Evaluation spent = book.evaluate(now, List.of());
    String message =
        "Budget llm (LocalQueue team-llm/train): used 20,013.5 of 20,000 nvidia.com/gpu-hours"
            + " in 2026-12; resets 2027-01-01T00:00Z";
    assertThat(spent.states().get(0).exhausted()).isTrue();
    assertThat(spent.states().get(0).message()).isEqualTo(message);
    assertThat(spent.spent())
        .isEqualTo(new SpentBudgets(Map.of("team-llm/train", message), Map.of(), Map.of()));

    BudgetBook.Evaluation january = book.evaluate(Instant.parse("2027-01-01T00:00:00Z"), List.of());
    assertThat(january.spent()).isEqualTo(SpentBudgets.NONE);
    assertThat(january.states().get(0).span().label()).isEqualTo("2027-01");
    assertThat(january.states().get(0).usedHours().get(GPU)).isEqualByComparingTo("0");
    assertThat(january.states().get(0).counted()).isEmpty();
  }

  @Test
  void aRestartedOperatorReadsTheWindowsRecordBackFromStatus() {
    Instant now = Instant.parse("2026-12-10T00:00:00Z");
    BudgetBook before = new BudgetBook();
    before.upsert(forLocalQueue("100"), now);
    Run ended = run("a", TRAIN, 2, t("2026-12-02T00:00:00Z"), t("2026-12-02T03:00:00Z"));
    before.ended(ended);
    BudgetStatus written =
        BudgetStatusWriter.status(before.evaluate(now, List.of()).states().get(0));

    Budget stored = forLocalQueue("100");
    stored.setStatus(written);
    BudgetBook after = new BudgetBook();
    after.upsert(stored, now);
    after.ended(ended);
    assertThat(after.evaluate(now, List.of()).states().get(0).usedHours().get(GPU))
        .isEqualByComparingTo("6");

    // A record of another window is not this one's.
    BudgetBook nextMonth = new BudgetBook();
    nextMonth.upsert(stored, Instant.parse("2027-01-02T00:00:00Z"));
    assertThat(
            nextMonth
                .evaluate(Instant.parse("2027-01-02T00:00:00Z"), List.of())
                .states()
                .get(0)
                .usedHours()
                .get(GPU))
        .isEqualByComparingTo("0");
  }

  @Test
  void clusterQueueAndCostCentreBudgetsChargeTheirOwnersRuns() {
    Instant now = Instant.parse("2026-12-10T00:00:00Z");
    BudgetBook book = new BudgetBook();
    book.upsert(
        Budgets.named("cq").clusterQueue("llm").monthly("UTC").hours(GPU, "1").build(), now);
    book.upsert(
        Budgets.named("cc").costCentre("cc-2").monthly("UTC").hours(GPU, "1000").build(), now);
    book.ended(run("a", TRAIN, 1, t("2026-12-02T00:00:00Z"), t("2026-12-02T02:00:00Z")));
    book.ended(run("b", OTHER, 1, t("2026-12-02T00:00:00Z"), t("2026-12-02T03:00:00Z")));
    BudgetBook.Evaluation e = book.evaluate(now, List.of());
    assertThat(e.states())
        .extracting(BudgetState::name, s -> s.usedHours().get(GPU).stripTrailingZeros())
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("cc", new BigDecimal("3")),
            org.assertj.core.groups.Tuple.tuple("cq", new BigDecimal("2")));
    assertThat(e.spent().clusterQueues()).containsOnlyKeys("llm");
    assertThat(e.spent().costCentres()).isEmpty();
  }
}
