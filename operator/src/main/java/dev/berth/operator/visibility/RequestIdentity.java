package dev.berth.operator.visibility;

import dev.berth.webhook.server.AsyncHttpsServer.Request;
import io.fabric8.kubernetes.api.model.authentication.TokenReview;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Who calls, as the API server says: the bearer token checked by a TokenReview, and what that user
 * may do checked by SubjectAccessReviews (list Workloads in a namespace), each asked once per
 * namespace while the {@link CallerCache} keeps the caller.
 */
final class RequestIdentity {
  private final KubernetesClient client;
  private final String user;
  private final String uid;
  private final List<String> groups;
  private final Map<String, List<String>> extra;

  /** Answers of SubjectAccessReviews; the identity is shared by a caller's requests. */
  private final Map<String, Boolean> allowed = new ConcurrentHashMap<>();

  private RequestIdentity(
      KubernetesClient client,
      String user,
      String uid,
      List<String> groups,
      Map<String, List<String>> extra) {
    this.client = client;
    this.user = user;
    this.uid = uid;
    this.groups = groups;
    this.extra = extra;
  }

  /** A request without a bearer token the API server authenticates: answered 401. */
  static final class Unauthenticated extends Exception {
    Unauthenticated(String message) {
      super(message, null, false, false);
    }
  }

  /**
   * The caller of a request: the user the API server's front proxy names, on a connection with its
   * client certificate (the aggregated API); else the caller of the bearer token.
   */
  static RequestIdentity authenticate(CallerCache callers, FrontProxy proxy, Request request)
      throws Unauthenticated {
    FrontProxy.User user = proxy.userOf(request);
    return user != null ? callers.of(user) : authenticate(callers, request);
  }

  /** A user the front proxy named: the API server has authenticated them. */
  static RequestIdentity of(KubernetesClient client, FrontProxy.User user) {
    return new RequestIdentity(client, user.name(), user.uid(), user.groups(), user.extra());
  }

  /** The caller of a request's bearer token. */
  static RequestIdentity authenticate(CallerCache callers, Request request) throws Unauthenticated {
    String header = request.header().get("Authorization");
    if (header == null || !header.startsWith("Bearer ") || header.length() <= 7) {
      throw new Unauthenticated("a bearer token is required (Authorization: Bearer ...)");
    }
    RequestIdentity caller = callers.of(header.substring(7).trim());
    if (caller == null) {
      throw new Unauthenticated("the API server did not authenticate the token");
    }
    return caller;
  }

  /** The caller of a bearer token, or null when the API server does not authenticate it. */
  static RequestIdentity of(KubernetesClient client, String token) {
    TokenReview review =
        client
            .authentication()
            .v1()
            .tokenReviews()
            .create(new TokenReviewBuilder().withNewSpec().withToken(token).endSpec().build());
    if (review.getStatus() == null || !Boolean.TRUE.equals(review.getStatus().getAuthenticated())) {
      return null;
    }
    var u = review.getStatus().getUser();
    return new RequestIdentity(
        client,
        u.getUsername(),
        u.getUid(),
        u.getGroups() == null ? List.of() : u.getGroups(),
        u.getExtra() == null ? Map.of() : u.getExtra());
  }

  String user() {
    return user;
  }

  /** Whether the caller may list Workloads in the namespace (what kubectl get wl needs). */
  boolean mayListWorkloads(String namespace) {
    return mayList("workloads", namespace);
  }

  /**
   * Whether the caller may list this berth.dev resource in the namespace (null: cluster-wide, as
   * for ClusterQueues and Topologies).
   */
  boolean mayList(String resource, String namespace) {
    String key = resource + "/" + (namespace == null ? "" : namespace);
    Boolean known = allowed.get(key);
    if (known != null) {
      return known;
    }
    SubjectAccessReview sar =
        client
            .authorization()
            .v1()
            .subjectAccessReview()
            .create(
                new SubjectAccessReviewBuilder()
                    .withNewSpec()
                    .withUser(user)
                    .withUid(uid)
                    .withGroups(groups)
                    .withExtra(extra)
                    .withNewResourceAttributes()
                    .withGroup("berth.dev")
                    .withResource(resource)
                    .withVerb("list")
                    .withNamespace(namespace)
                    .endResourceAttributes()
                    .endSpec()
                    .build());
    boolean answer = sar.getStatus() != null && Boolean.TRUE.equals(sar.getStatus().getAllowed());
    allowed.put(key, answer);
    return answer;
  }
}
