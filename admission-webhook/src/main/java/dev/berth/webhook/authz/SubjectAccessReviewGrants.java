package dev.berth.webhook.authz;

import dev.berth.webhook.validation.CheckStateGrants;
import dev.berth.webhook.validation.RequestUser;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.function.Function;

/**
 * Asks the API server's authorizer (RBAC, or whatever the cluster runs) whether the requesting user
 * holds {@value CheckStateGrants#VERB} on {@code admissionchecks/<check>} in berth.dev: an admin
 * grants a check's controller exactly its checks with a ClusterRole naming them in resourceNames.
 * The webhook's own identity needs {@code create} on {@code subjectaccessreviews} (the chart's
 * operator ClusterRole has it).
 */
public final class SubjectAccessReviewGrants implements CheckStateGrants {
  private final Function<SubjectAccessReview, SubjectAccessReview> authorizer;

  public SubjectAccessReviewGrants(KubernetesClient client) {
    this(sar -> client.authorization().v1().subjectAccessReview().create(sar));
  }

  /** With the round trip to the API server given: tests answer without one. */
  SubjectAccessReviewGrants(Function<SubjectAccessReview, SubjectAccessReview> authorizer) {
    this.authorizer = authorizer;
  }

  @Override
  public boolean mayWriteState(RequestUser user, String check) {
    SubjectAccessReview answer;
    try {
      answer = authorizer.apply(review(user, check));
    } catch (RuntimeException e) {
      throw new Unavailable("SubjectAccessReview failed: " + e.getMessage(), e);
    }
    if (answer == null || answer.getStatus() == null) {
      throw new Unavailable("SubjectAccessReview came back without a status", null);
    }
    return Boolean.TRUE.equals(answer.getStatus().getAllowed());
  }

  static SubjectAccessReview review(RequestUser user, String check) {
    return new SubjectAccessReviewBuilder()
        .withNewSpec()
        .withUser(user.username())
        .withUid(user.uid())
        .withGroups(user.groups())
        .withExtra(user.extra())
        .withNewResourceAttributes()
        .withGroup("berth.dev")
        .withResource("admissionchecks")
        .withName(check)
        .withVerb(VERB)
        .endResourceAttributes()
        .endSpec()
        .build();
  }
}
