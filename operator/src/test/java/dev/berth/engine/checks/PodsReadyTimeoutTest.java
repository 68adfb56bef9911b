package dev.berth.engine.checks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.engine.checks.PodsReadyTimeout.Condition;
import dev.berth.engine.checks.PodsReadyTimeout.Deactivate;
import dev.berth.engine.checks.PodsReadyTimeout.Phase;
import dev.berth.engine.checks.PodsReadyTimeout.Requeue;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class PodsReadyTimeoutTest {
  private final PodsReadyTimeout timer = new PodsReadyTimeout(10_000, 30_000L);

  @Test
  void conditionNamesStartAndRecovery() {
    assertThat(PodsReadyTimeout.condition(null, false))
        .isEqualTo(new Condition(false, "WaitForStart"));
    assertThat(PodsReadyTimeout.condition("WaitForStart", false))
        .isEqualTo(new Condition(false, "WaitForStart"));
    assertThat(PodsReadyTimeout.condition(null, true)).isEqualTo(new Condition(true, "PodsReady"));
    assertThat(PodsReadyTimeout.condition("WaitForStart", true))
        .isEqualTo(new Condition(true, "PodsReady"));
    assertThat(PodsReadyTimeout.condition("PodsReady", false))
        .isEqualTo(new Condition(false, "WaitForRecovery"));
    assertThat(PodsReadyTimeout.condition("WaitForRecovery", false))
        .isEqualTo(new Condition(false, "WaitForRecovery"));
    assertThat(PodsReadyTimeout.condition("WaitForRecovery", true))
        .isEqualTo(new Condition(true, "Recovered"));
    // Staying ready keeps the reason it became ready with (no write for nothing).
    assertThat(PodsReadyTimeout.condition("PodsReady", true))
        .isEqualTo(new Condition(true, "PodsReady"));
    assertThat(PodsReadyTimeout.condition("Recovered", true))
        .isEqualTo(new Condition(true, "Recovered"));
    assertThat(PodsReadyTimeout.condition("Recovered", false))
        .isEqualTo(new Condition(false, "WaitForRecovery"));
  }

  @Test
  void phaseFromTheCondition() {
    assertThat(PodsReadyTimeout.phase(null, null)).isEqualTo(Phase.WaitForStart);
    assertThat(PodsReadyTimeout.phase(false, "WaitForStart")).isEqualTo(Phase.WaitForStart);
    assertThat(PodsReadyTimeout.phase(true, "Recovered")).isEqualTo(Phase.Ready);
    assertThat(PodsReadyTimeout.phase(false, "WaitForRecovery")).isEqualTo(Phase.WaitForRecovery);
    // A reason Berth does not know never counts as ready, and is timed from the admission.
    assertThat(PodsReadyTimeout.phase(false, "SomethingElse")).isEqualTo(Phase.WaitForStart);
  }

  @Test
  void deadlines() {
    assertThat(timer.deadline(Phase.WaitForStart, 1_000)).hasValue(11_000);
    assertThat(timer.deadline(Phase.WaitForRecovery, 50_000)).hasValue(80_000);
    assertThat(timer.deadline(Phase.Ready, 1_000)).isEmpty();
    assertThat(new PodsReadyTimeout(10_000, null).deadline(Phase.WaitForRecovery, 1))
        .isEqualTo(OptionalLong.empty());
  }

  @Test
  void timeoutsRequeueWithGrowingBackoffThenDeactivate() {
    RequeueBackoff backoff = new RequeueBackoff(10, 100, 2);
    assertThat(PodsReadyTimeout.afterTimeout(backoff, 0, 1_000, 0))
        .isEqualTo(new Requeue(1, 11_000));
    assertThat(PodsReadyTimeout.afterTimeout(backoff, 1, 1_000, 0))
        .isEqualTo(new Requeue(2, 21_000));
    assertThat(PodsReadyTimeout.afterTimeout(backoff, 1, 1_000, 1))
        .isEqualTo(new Requeue(2, 23_000));
    assertThat(PodsReadyTimeout.afterTimeout(backoff, 2, 1_000, 0)).isEqualTo(new Deactivate(2));
    assertThat(PodsReadyTimeout.afterTimeout(new RequeueBackoff(10, 100, 0), 0, 0, 0))
        .isEqualTo(new Deactivate(0));
    assertThat(PodsReadyTimeout.afterTimeout(RequeueBackoff.DEFAULT, 10_000, 0, 0))
        .isInstanceOf(Requeue.class);
  }
}
