package dev.berth.operator.kube;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Each named outcome against the codes fabric8 reports, one row per code. */
class ApiErrorsTest {

  private static KubernetesClientException answered(int code, String reason) {
    return new KubernetesClientException(
        new StatusBuilder().withCode(code).withReason(reason).withMessage("m").build());
  }

  /** As fabric8 reports a request that got no answer: an I/O failure, code 0 or less. */
  private static KubernetesClientException noReply(int code) {
    return new KubernetesClientException("no reply", code, null);
  }

  @ParameterizedTest(name = "{0} {1}")
  @CsvSource({
    // code, reason, conflict, gone, conflictOrGone, alreadyExists, throttled, invalid, unknown
    "409, Conflict,      true,  false, true,  false, false, false, false",
    "409, AlreadyExists, true,  false, true,  true,  false, false, false",
    "404, NotFound,      false, true,  true,  false, false, false, false",
    "429, TooManyRequests, false, false, false, false, true, false, false",
    "400, BadRequest,    false, false, false, false, false, true,  false",
    "422, Invalid,       false, false, false, false, false, true,  false",
    "403, Forbidden,     false, false, false, false, false, false, false",
    "500, InternalError, false, false, false, false, false, false, true",
    "503, ServiceUnavailable, false, false, false, false, false, false, true",
    "504, Timeout,       false, false, false, false, false, false, true",
  })
  void eachAnswerHasItsName(
      int code,
      String reason,
      boolean conflict,
      boolean gone,
      boolean conflictOrGone,
      boolean alreadyExists,
      boolean throttled,
      boolean invalid,
      boolean unknown) {
    KubernetesClientException e = answered(code, reason);
    assertThat(ApiErrors.conflict(e)).as("conflict").isEqualTo(conflict);
    assertThat(ApiErrors.gone(e)).as("gone").isEqualTo(gone);
    assertThat(ApiErrors.conflictOrGone(e)).as("conflictOrGone").isEqualTo(conflictOrGone);
    assertThat(ApiErrors.alreadyExists(e)).as("alreadyExists").isEqualTo(alreadyExists);
    assertThat(ApiErrors.throttled(e)).as("throttled").isEqualTo(throttled);
    assertThat(ApiErrors.invalid(e)).as("invalid").isEqualTo(invalid);
    assertThat(ApiErrors.outcomeUnknown(e)).as("outcomeUnknown").isEqualTo(unknown);
  }

  @ParameterizedTest(name = "code {0}")
  @CsvSource({"0", "-1"})
  void noReplyIsAnUnknownOutcomeAndNothingElse(int code) {
    KubernetesClientException e = noReply(code);
    assertThat(ApiErrors.outcomeUnknown(e)).isTrue();
    assertThat(ApiErrors.conflictOrGone(e)).isFalse();
    assertThat(ApiErrors.alreadyExists(e)).isFalse();
    assertThat(ApiErrors.throttled(e)).isFalse();
    assertThat(ApiErrors.invalid(e)).isFalse();
  }

  @Test
  void anIoFailureWrappedByFabric8IsAnUnknownOutcome() {
    KubernetesClientException e =
        new KubernetesClientException("connection reset", new IOException("connection reset"));
    assertThat(ApiErrors.outcomeUnknown(e)).isTrue();
  }
}
