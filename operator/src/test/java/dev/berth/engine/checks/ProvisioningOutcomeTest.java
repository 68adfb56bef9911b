package dev.berth.engine.checks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.engine.checks.ProvisioningOutcome.Decision;
import dev.berth.engine.checks.ProvisioningOutcome.RequestCondition;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The autoscaler's conditions on a ProvisioningRequest, as the check's state. */
class ProvisioningOutcomeTest {
  private static RequestCondition on(String type, String message) {
    return new RequestCondition(type, "True", type + "Reason", message);
  }

  private static RequestCondition off(String type) {
    return new RequestCondition(type, "False", type + "Reason", "");
  }

  /** name, conditions, admitted, retries so far, limit, expected state, message contains. */
  static Stream<Arguments> cases() {
    return Stream.of(
        Arguments.of(
            "no conditions yet",
            List.of(),
            false,
            0,
            3,
            CheckState.Pending,
            "pr-1 created, waiting for the autoscaler"),
        Arguments.of(
            "accepted, no capacity yet",
            List.of(on("Accepted", "queued")),
            false,
            0,
            3,
            CheckState.Pending,
            "accepted by the autoscaler, waiting for capacity: queued"),
        Arguments.of(
            "provisioned",
            List.of(on("Accepted", ""), on("Provisioned", "4 nodes")),
            false,
            0,
            3,
            CheckState.Ready,
            "pr-1 is provisioned: 4 nodes"),
        Arguments.of(
            "Provisioned=False is not Ready",
            List.of(off("Provisioned")),
            false,
            0,
            3,
            CheckState.Pending,
            "waiting for the autoscaler"),
        Arguments.of(
            "failed with retries left",
            List.of(on("Failed", "no spot capacity")),
            false,
            0,
            3,
            CheckState.Retry,
            "failed (Failed: no spot capacity); retry 1 of 3"),
        Arguments.of(
            "failed on the last retry",
            List.of(on("Failed", "")),
            false,
            2,
            3,
            CheckState.Retry,
            "retry 3 of 3"),
        Arguments.of(
            "failed after the limit",
            List.of(on("Failed", "")),
            false,
            3,
            3,
            CheckState.Rejected,
            "no retry left (3 of retryStrategy.backoffLimitCount 3 used)"),
        Arguments.of(
            "limit 0: the first failure rejects",
            List.of(on("Failed", "")),
            false,
            0,
            0,
            CheckState.Rejected,
            "no retry left"),
        Arguments.of(
            "failure wins over an earlier Provisioned",
            List.of(on("Provisioned", ""), on("Failed", "gone")),
            false,
            0,
            3,
            CheckState.Retry,
            "failed"),
        Arguments.of(
            "booking expired before the pods came",
            List.of(on("Provisioned", ""), on("BookingExpired", "")),
            false,
            0,
            3,
            CheckState.Retry,
            "its booking expired before the pods came"),
        Arguments.of(
            "booking expired once admitted: the pods use the nodes",
            List.of(on("Provisioned", ""), on("BookingExpired", "")),
            true,
            0,
            3,
            CheckState.Ready,
            "is provisioned"),
        Arguments.of(
            "capacity revoked while running",
            List.of(on("Provisioned", ""), on("CapacityRevoked", "spot reclaimed")),
            true,
            1,
            3,
            CheckState.Retry,
            "its capacity was revoked (CapacityRevoked: spot reclaimed)"),
        Arguments.of(
            "capacity revoked after the limit",
            List.of(on("CapacityRevoked", "")),
            true,
            3,
            3,
            CheckState.Rejected,
            "no retry left"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void mapsTheConditions(
      String name,
      List<RequestCondition> conditions,
      boolean admitted,
      int retries,
      int limit,
      CheckState state,
      String message) {
    Decision d = ProvisioningOutcome.decide("pr-1", conditions, admitted, retries, limit);
    assertThat(d.state()).isEqualTo(state);
    assertThat(d.message()).contains(message);
  }
}
