package dev.berth.webhook.validation;

import java.util.List;
import java.util.Map;

/**
 * Who sent a request, as the API server authenticated them (an AdmissionReview's userInfo): all of
 * it, because an authorizer may decide on groups or extra attributes, not only on the name.
 */
public record RequestUser(
    String username, String uid, List<String> groups, Map<String, List<String>> extra) {

  public RequestUser {
    groups = groups == null ? List.of() : List.copyOf(groups);
    extra = extra == null ? Map.of() : Map.copyOf(extra);
  }

  /** A user known only by name (tests, callers that have nothing else). */
  public static RequestUser named(String username) {
    return new RequestUser(username, null, List.of(), Map.of());
  }
}
