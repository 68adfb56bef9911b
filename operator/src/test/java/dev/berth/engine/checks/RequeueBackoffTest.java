package dev.berth.engine.checks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RequeueBackoffTest {
  private final RequeueBackoff backoff = new RequeueBackoff(60, 3600, 3);

  @Test
  void doublesFromTheBaseAndStopsAtTheCap() {
    assertThat(backoff.requeueAt(1, 0, 0)).isEqualTo(60_000);
    assertThat(backoff.requeueAt(2, 0, 0)).isEqualTo(120_000);
    assertThat(backoff.requeueAt(3, 1_000, 0)).isEqualTo(241_000);
    assertThat(backoff.requeueAt(7, 0, 0)).isEqualTo(3_600_000);
    assertThat(backoff.requeueAt(500, 0, 0)).isEqualTo(3_600_000);
  }

  @Test
  void jitterMovesTheDelayByAtMostTenPercentAndNeverPastTheCap() {
    assertThat(backoff.requeueAt(1, 0, 1)).isEqualTo(66_000);
    assertThat(backoff.requeueAt(1, 0, -1)).isEqualTo(54_000);
    assertThat(backoff.requeueAt(1, 0, 7)).isEqualTo(66_000);
    assertThat(backoff.requeueAt(9, 0, 1)).isEqualTo(3_600_000);
  }

  @Test
  void limitCountsRequeues() {
    assertThat(backoff.exceeded(3)).isFalse();
    assertThat(backoff.exceeded(4)).isTrue();
    assertThat(RequeueBackoff.DEFAULT.exceeded(1_000_000)).isFalse();
    assertThatThrownBy(() -> new RequeueBackoff(1, 1, -1))
        .hasMessageContaining("backoffLimitCount");
  }
}
