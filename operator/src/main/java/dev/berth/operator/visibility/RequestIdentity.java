package dev.berth.operator.visibility;

import io.fabric8.kubernetes.api.model.authentication.TokenReview;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Who calls, as the API server says: the bearer token checked by a TokenReview, and what that
 * user may do checked by SubjectAccessReviews (list Workloads in a namespace), each asked once
 * per namespace and request.
 */
final class RequestIdentity {
  private final KubernetesClient client;
  private final String user;
  private final String uid;
  private final List<String> groups;
  private final Map<String, List<String>> extra;
  private final Map<String, Boolean> mayList = new HashMap<>();

  private RequestIdentity(KubernetesClient client, String user, String uid, List<String> groups,
      Map<String, List<String>> extra) {
    this.client = client;
    this.user = user;
    this.uid = uid;
    this.groups = groups;
    this.extra = extra;
  }

  /** The caller of a bearer token, or null when the API server does not authenticate it. */
  static RequestIdentity of(KubernetesClient client, String token) {
    TokenReview review = client.authentication().v1().tokenReviews().create(
        new TokenReviewBuilder().withNewSpec().withToken(token).endSpec().build());
    if (review.getStatus() == null || !Boolean.TRUE.equals(review.getStatus().getAuthenticated())) {
      return null;
    }
    var u = review.getStatus().getUser();
    return new RequestIdentity(client, u.getUsername(), u.getUid(),
        u.getGroups() == null ? List.of() : u.getGroups(),
        u.getExtra() == null ? Map.of() : u.getExtra());
  }

  String user() {
    return user;
  }

  /** Whether the caller may list Workloads in the namespace (what kubectl get wl needs). */
  boolean mayListWorkloads(String namespace) {
    return mayList.computeIfAbsent(namespace, ns -> {
      SubjectAccessReview sar = client.authorization().v1().subjectAccessReview().create(
          new SubjectAccessReviewBuilder()
              .withNewSpec()
              .withUser(user)
              .withUid(uid)
              .withGroups(groups)
              .withExtra(extra)
              .withNewResourceAttributes()
              .withGroup("berth.dev")
              .withResource("workloads")
              .withVerb("list")
              .withNamespace(ns)
              .endResourceAttributes()
              .endSpec()
              .build());
      return sar.getStatus() != null && Boolean.TRUE.equals(sar.getStatus().getAllowed());
    });
  }
}
