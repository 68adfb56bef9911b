package dev.berth.operator.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.api.v1beta1.WorkloadStatus;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class StatusConditionsTest {
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final Instant T1 = Instant.parse("2026-01-01T00:01:00Z");

  @Test
  void transitionTimeMovesOnlyWhenTheStatusChanges() {
    WorkloadStatus status = new WorkloadStatus();
    assertThat(
            StatusConditions.set(status, "QuotaReserved", false, "WaitingForQuota", "needs 8", T0))
        .isTrue();
    assertThat(
            StatusConditions.set(status, "QuotaReserved", false, "WaitingForQuota", "needs 8", T1))
        .isFalse();
    assertThat(
            StatusConditions.set(status, "QuotaReserved", false, "WaitingForQuota", "needs 4", T1))
        .isTrue();
    assertThat(status.conditions.get(0).lastTransitionTime).isEqualTo(T0.toString());
    assertThat(StatusConditions.set(status, "QuotaReserved", true, "QuotaReserved", "ok", T1))
        .isTrue();
    assertThat(status.conditions.get(0).lastTransitionTime).isEqualTo(T1.toString());
    assertThat(status.conditions).hasSize(1);
  }

  @Test
  void everyConditionCarriesWhatMetav1ConditionRequires() {
    WorkloadStatus status = new WorkloadStatus();
    StatusConditions.set(status, "PodsReady", false, null, null, T0);
    assertThat(status.conditions.get(0).reason).isEqualTo("PodsReady");
    assertThat(status.conditions.get(0).message).isEmpty();
    assertThat(status.conditions.get(0).lastTransitionTime).isEqualTo(T0.toString());
    assertThatThrownBy(
            () -> StatusConditions.set(status, "Evicted", true, "Pods ready timeout", "x", T0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("CamelCase");
  }
}
