package dev.berth.operator.admission;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.api.v1beta1.WorkloadStatus;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class WorkloadConditionsTest {
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final Instant T1 = Instant.parse("2026-01-01T00:01:00Z");

  @Test
  void transitionTimeMovesOnlyWhenTheStatusChanges() {
    WorkloadStatus status = new WorkloadStatus();
    assertThat(WorkloadConditions.set(status, "QuotaReserved", false, "WaitingForQuota", "needs 8", T0)).isTrue();
    assertThat(WorkloadConditions.set(status, "QuotaReserved", false, "WaitingForQuota", "needs 8", T1)).isFalse();
    assertThat(WorkloadConditions.set(status, "QuotaReserved", false, "WaitingForQuota", "needs 4", T1)).isTrue();
    assertThat(status.conditions.get(0).lastTransitionTime).isEqualTo(T0.toString());
    assertThat(WorkloadConditions.set(status, "QuotaReserved", true, "QuotaReserved", "ok", T1)).isTrue();
    assertThat(status.conditions.get(0).lastTransitionTime).isEqualTo(T1.toString());
    assertThat(status.conditions).hasSize(1);
  }
}
