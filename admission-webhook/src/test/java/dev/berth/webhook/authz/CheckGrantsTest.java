package dev.berth.webhook.authz;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.webhook.validation.CheckStateGrants;
import dev.berth.webhook.validation.RequestUser;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewStatus;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** What the webhook asks the API server, and how long it trusts the answer. */
class CheckGrantsTest {
  private static final RequestUser USER =
      new RequestUser(
          "system:serviceaccount:capacity-system:provisioner",
          "uid-1",
          List.of("system:serviceaccounts"),
          Map.of("authentication.kubernetes.io/pod-name", List.of("provisioner-0")));

  @Test
  void theReviewNamesTheVerbTheCheckAndTheWholeIdentity() {
    SubjectAccessReview review = SubjectAccessReviewGrants.review(USER, "capacity");
    var spec = review.getSpec();
    assertThat(spec.getUser()).isEqualTo(USER.username());
    assertThat(spec.getUid()).isEqualTo("uid-1");
    assertThat(spec.getGroups()).containsExactly("system:serviceaccounts");
    assertThat(spec.getExtra())
        .containsEntry("authentication.kubernetes.io/pod-name", List.of("provisioner-0"));
    var attributes = spec.getResourceAttributes();
    assertThat(attributes.getGroup()).isEqualTo("berth.dev");
    assertThat(attributes.getResource()).isEqualTo("admissionchecks");
    assertThat(attributes.getName()).isEqualTo("capacity");
    assertThat(attributes.getVerb()).isEqualTo("update-state");
    assertThat(attributes.getNamespace()).isNull();
  }

  @Test
  void theAuthorizersAnswerIsTakenAndAFailureIsUnavailable() {
    assertThat(new SubjectAccessReviewGrants(r -> answered(r, true)).mayWriteState(USER, "c"))
        .isTrue();
    assertThat(new SubjectAccessReviewGrants(r -> answered(r, false)).mayWriteState(USER, "c"))
        .isFalse();
    assertThatThrownBy(
            () ->
                new SubjectAccessReviewGrants(
                        r -> {
                          throw new IllegalStateException("connect timed out");
                        })
                    .mayWriteState(USER, "c"))
        .isInstanceOf(CheckStateGrants.Unavailable.class)
        .hasMessageContaining("connect timed out");
    assertThatThrownBy(() -> new SubjectAccessReviewGrants(r -> r).mayWriteState(USER, "c"))
        .isInstanceOf(CheckStateGrants.Unavailable.class);
  }

  @Test
  void aGrantIsTrustedForTheTtlAndARefusalNever() {
    AtomicBoolean granted = new AtomicBoolean(false);
    AtomicInteger asks = new AtomicInteger();
    AtomicLong now = new AtomicLong(0);
    CachedGrants grants =
        new CachedGrants(
            (user, check) -> {
              asks.incrementAndGet();
              return granted.get();
            },
            Duration.ofSeconds(10),
            now::get);
    assertThat(grants.mayWriteState(USER, "capacity")).isFalse();
    granted.set(true);
    assertThat(grants.mayWriteState(USER, "capacity")).as("a new grant works at once").isTrue();
    assertThat(asks).hasValue(2);

    granted.set(false); // revoked
    now.set(Duration.ofSeconds(9).toNanos());
    assertThat(grants.mayWriteState(USER, "capacity")).as("within the TTL").isTrue();
    assertThat(asks).hasValue(2);
    now.set(Duration.ofSeconds(10).toNanos());
    assertThat(grants.mayWriteState(USER, "capacity")).as("the revocation, at the TTL").isFalse();
    assertThat(grants.mayWriteState(USER, "budget")).isFalse();
    assertThat(asks).hasValue(4);
  }

  @Test
  void anotherIdentityOrCheckIsAskedAgainAndFailuresAreNotRemembered() {
    AtomicInteger asks = new AtomicInteger();
    AtomicBoolean down = new AtomicBoolean(true);
    CachedGrants grants =
        new CachedGrants(
            (user, check) -> {
              asks.incrementAndGet();
              if (down.get()) {
                throw new CheckStateGrants.Unavailable("down", null);
              }
              return user.equals(USER) && check.equals("capacity");
            },
            Duration.ofSeconds(10),
            () -> 0);
    assertThatThrownBy(() -> grants.mayWriteState(USER, "capacity"))
        .isInstanceOf(CheckStateGrants.Unavailable.class);
    down.set(false);
    assertThat(grants.mayWriteState(USER, "capacity")).isTrue();
    assertThat(grants.mayWriteState(USER, "budget")).isFalse();
    RequestUser fewerGroups = new RequestUser(USER.username(), USER.uid(), List.of(), USER.extra());
    assertThat(grants.mayWriteState(fewerGroups, "capacity")).isFalse();
    assertThat(asks).hasValue(4);
  }

  private static SubjectAccessReview answered(SubjectAccessReview review, boolean allowed) {
    SubjectAccessReviewStatus status = new SubjectAccessReviewStatus();
    status.setAllowed(allowed);
    review.setStatus(status);
    return review;
  }
}
