package dev.berth.engine.checks;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ExecutionBudgetTest {
  @Test
  void theTimeRunBeforeARequeueCounts() {
    assertThat(ExecutionBudget.deadline(600, 0, 1_000)).isEqualTo(601_000);
    assertThat(ExecutionBudget.deadline(600, 590, 1_000)).isEqualTo(11_000);
    assertThat(ExecutionBudget.deadline(600, 900, 1_000)).as("already used up").isEqualTo(1_000);
  }

  @Test
  void anAdmissionThatEndsAddsItsWholeSeconds() {
    assertThat(ExecutionBudget.accumulated(10, 1_000, 4_999)).isEqualTo(13);
    assertThat(ExecutionBudget.accumulated(10, 5_000, 1_000)).as("clock skew").isEqualTo(10);
  }
}
