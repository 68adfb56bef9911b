package dev.berth.e2e.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class FaultScheduleTest {
  private static List<Optional<Fault>> decisions(FaultSchedule schedule, int n) {
    List<Optional<Fault>> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(schedule.next(i % 3 == 0, i % 7 == 0));
    }
    return out;
  }

  @Test
  void theSameSeedGivesTheSameSchedule() {
    assertThat(decisions(new FaultSchedule(42, 0.05), 2_000))
        .isEqualTo(decisions(new FaultSchedule(42, 0.05), 2_000))
        .isNotEqualTo(decisions(new FaultSchedule(43, 0.05), 2_000));
  }

  @Test
  void writesMeetEveryKindButADropReadsOnlyRefusalsWatchesOnlyDrops() {
    FaultSchedule schedule = new FaultSchedule(7, 0.05);
    Map<Fault, Integer> writes = new EnumMap<>(Fault.class);
    Map<Fault, Integer> reads = new EnumMap<>(Fault.class);
    Map<Fault, Integer> watches = new EnumMap<>(Fault.class);
    for (int i = 0; i < 20_000; i++) {
      schedule.next(true, false).ifPresent(f -> writes.merge(f, 1, Integer::sum));
      schedule.next(false, false).ifPresent(f -> reads.merge(f, 1, Integer::sum));
      schedule.next(false, true).ifPresent(f -> watches.merge(f, 1, Integer::sum));
    }
    assertThat(writes)
        .containsOnlyKeys(
            Fault.CONFLICT, Fault.TOO_MANY_REQUESTS, Fault.SERVER_ERROR, Fault.TIMEOUT_AFTER_APPLY);
    // 5 % of 20,000 for each kind, give or take.
    assertThat(writes.values()).allSatisfy(n -> assertThat(n).isBetween(800, 1_200));
    assertThat(reads).containsOnlyKeys(Fault.TOO_MANY_REQUESTS, Fault.SERVER_ERROR);
    assertThat(watches).containsOnlyKeys(Fault.WATCH_DROP);
  }

  @Test
  void statusWritesAndJobUpdatesAlsoMeetWritesAppliedThenAnswered500Or504() {
    FaultSchedule schedule = new FaultSchedule(11, 0.05);
    Map<Fault, Integer> applyable = new EnumMap<>(Fault.class);
    for (int i = 0; i < 20_000; i++) {
      schedule.next(true, false, true).ifPresent(f -> applyable.merge(f, 1, Integer::sum));
    }
    assertThat(applyable)
        .containsOnlyKeys(
            Fault.CONFLICT,
            Fault.TOO_MANY_REQUESTS,
            Fault.SERVER_ERROR,
            Fault.TIMEOUT_AFTER_APPLY,
            Fault.APPLIED_THEN_500,
            Fault.APPLIED_THEN_504);
    assertThat(applyable.values()).allSatisfy(n -> assertThat(n).isBetween(800, 1_200));
    assertThat(Fault.APPLIED_THEN_500.applies()).isTrue();
    assertThat(Fault.SERVER_ERROR.applies()).as("refused without forwarding").isFalse();
  }

  @Test
  void aRateOutOfRangeIsRefusedNamingTheProperty() {
    assertThatThrownBy(() -> new FaultSchedule(1, 0.5)).hasMessageContaining("berth.faults.rate");
  }
}
