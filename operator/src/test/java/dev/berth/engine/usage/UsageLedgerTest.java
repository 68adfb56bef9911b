package dev.berth.engine.usage;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A scripted life with known durations: reserved at t=0, preempted (quota released) at 600 s,
 * reserved again at 900 s, the operator restarted at 2000 s, finished at 4500 s.
 */
class UsageLedgerTest {
  private static final long S = 1000;
  private static final UsageOwner OWNER = new UsageOwner("team-llm", "training", "llm", "cc-42");
  private static final List<UsageRequest> REQUESTS =
      List.of(
          new UsageRequest("main", "h100", "nvidia.com/gpu", 16),
          new UsageRequest("main", "h100", "cpu", 192_000),
          new UsageRequest("launcher", "cpu-only", "cpu", 500));

  @Test
  void aPreemptedAndResumedWorkloadIsBilledPerRunAcrossARestartExactlyOnce() {
    UsageLedger ledger = new UsageLedger();

    List<UsageLedger.Event> e1 = ledger.observe(reserved(0, null));
    assertThat(e1).singleElement().isInstanceOf(UsageLedger.Opened.class);
    assertThat(ledger.observe(reserved(0, null))).as("the same version again").isEmpty();

    List<UsageLedger.Event> e2 = ledger.observe(released(600 * S));
    Run first = ended(e2);
    assertThat(first.start()).isZero();
    assertThat(first.end()).isEqualTo(600 * S);
    UsageTotals record = UsageTotals.none().plus(first);

    assertThat(ledger.observe(reserved(900 * S, 0L)))
        .singleElement()
        .isInstanceOf(UsageLedger.Opened.class);

    // Restart: a new ledger sees the reserved version, with the record of run 1 on it.
    UsageLedger restarted = new UsageLedger();
    assertThat(restarted.observe(reserved(900 * S, 0L)))
        .singleElement()
        .satisfies(e -> assertThat(((UsageLedger.Opened) e).run().start()).isEqualTo(900 * S));
    Run second = ended(restarted.observe(finished(900 * S, 4500 * S, 0L)));
    assertThat(second.end() - second.start()).isEqualTo(3600 * S);
    record = record.plus(second);
    assertThat(restarted.observe(finished(900 * S, 4500 * S, 900 * S)))
        .as("seen again after the record was written")
        .isEmpty();
    assertThat(record.counts(second)).isTrue();

    assertThat(record.runs()).isEqualTo(2);
    assertThat(record.occupiedSeconds()).isEqualByComparingTo("4200");
    assertThat(record.resourceSeconds().get(key("main", "h100", "nvidia.com/gpu")))
        .as("16 GPUs × 4200 s = 67200 GPU-seconds = 18.67 GPU-hours")
        .isEqualByComparingTo("67200");
    assertThat(record.resourceSeconds().get(key("main", "h100", "cpu")))
        .isEqualByComparingTo(BigDecimal.valueOf(192L * 4200));
    assertThat(record.resourceSeconds().get(key("launcher", "cpu-only", "cpu")))
        .as("500m × 4200 s")
        .isEqualByComparingTo("2100");
    assertThat(record.lastRunStart()).isEqualTo(900 * S);
    assertThat(record.lastRunEnd()).isEqualTo(4500 * S);
  }

  @Test
  void aWorkloadThatFinishedWhileNoOneWatchedIsBilledFromItsConditions() {
    UsageLedger ledger = new UsageLedger();

    Run run = ended(ledger.observe(finished(100 * S, 400 * S, null)));

    assertThat(run.start()).isEqualTo(100 * S);
    assertThat(run.end()).isEqualTo(400 * S);
    assertThat(ledger.observe(finished(100 * S, 400 * S, null))).isEmpty();
    assertThat(new UsageLedger().observe(finished(100 * S, 400 * S, 100 * S)))
        .as("its record already counts it")
        .isEmpty();
  }

  @Test
  void aReleaseAndANewReservationBetweenTwoObservedVersionsEndTheFirstRun() {
    UsageLedger ledger = new UsageLedger();
    ledger.observe(reserved(0, null));

    List<UsageLedger.Event> events = ledger.observe(reserved(50 * S, null));

    assertThat(events).hasSize(2);
    assertThat(((UsageLedger.Ended) events.get(0)).run().end()).isEqualTo(50 * S);
    assertThat(((UsageLedger.Opened) events.get(1)).run().start()).isEqualTo(50 * S);
    assertThat(ledger.openRuns())
        .singleElement()
        .satisfies(r -> assertThat(r.start()).isEqualTo(50 * S));
  }

  @Test
  void aDeletedWorkloadEndsItsRunWithNothingToRecordOn() {
    UsageLedger ledger = new UsageLedger();
    ledger.observe(reserved(0, null));

    List<UsageLedger.Event> events = ledger.deleted("uid-1", 30 * S);

    assertThat(events)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(((UsageLedger.Ended) e).durable()).isFalse();
              assertThat(((UsageLedger.Ended) e).run().end()).isEqualTo(30 * S);
            });
    assertThat(ledger.deleted("uid-1", 40 * S)).isEmpty();
    assertThat(ledger.openRuns()).isEmpty();
  }

  @Test
  void aPendingWorkloadThatNeverHeldQuotaCostsNothing() {
    UsageLedger ledger = new UsageLedger();
    assertThat(
            ledger.observe(
                new WorkloadObservation(
                    "uid-1", "team-llm/wl", OWNER, null, null, null, List.of(), null)))
        .isEmpty();
    assertThat(
            ledger.observe(
                new WorkloadObservation(
                    "uid-1", "team-llm/wl", OWNER, null, null, 10 * S, List.of(), null)))
        .isEmpty();
  }

  @Test
  void anUnendedRunCannotBeAddedAndDecimalsPrintPlainly() {
    Run open = new Run("u", "n", OWNER, 0, null, REQUESTS);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> UsageTotals.none().plus(open))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(UsageTotals.text(new BigDecimal("67200.000"))).isEqualTo("67200");
    assertThat(UsageTotals.text(new BigDecimal("1.500"))).isEqualTo("1.5");
    assertThat(UsageTotals.text(new BigDecimal("1E+3"))).isEqualTo("1000");
  }

  private static UsageTotals.Key key(String podSet, String flavor, String resource) {
    return new UsageTotals.Key(podSet, flavor, resource);
  }

  private static Run ended(List<UsageLedger.Event> events) {
    assertThat(events).singleElement().isInstanceOf(UsageLedger.Ended.class);
    UsageLedger.Ended ended = (UsageLedger.Ended) events.get(0);
    assertThat(ended.durable()).isTrue();
    return ended.run();
  }

  private static WorkloadObservation reserved(long at, Long counted) {
    return new WorkloadObservation(
        "uid-1", "team-llm/wl", OWNER, at, null, null, REQUESTS, counted);
  }

  private static WorkloadObservation released(long at) {
    return new WorkloadObservation("uid-1", "team-llm/wl", OWNER, null, at, null, List.of(), null);
  }

  private static WorkloadObservation finished(long reservedAt, long at, Long counted) {
    return new WorkloadObservation(
        "uid-1", "team-llm/wl", OWNER, reservedAt, null, at, REQUESTS, counted);
  }
}
