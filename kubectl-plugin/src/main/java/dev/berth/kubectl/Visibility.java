package dev.berth.kubectl;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/**
 * The operator's visibility API (docs/visibility.md), called with the user's bearer token: the
 * operator checks it with a TokenReview and a SubjectAccessReview, so the user sees what
 * kubectl would let them list.
 */
final class Visibility {
  /** The API answered with an error, or could not be reached; the message says which. */
  static final class Failure extends RuntimeException {
    Failure(String message) {
      super(message);
    }
  }

  private final String base;
  private final String token;

  Visibility(String base, String token) {
    this.base = base.endsWith("/") ? base.substring(0, base.length() - 1) : base;
    this.token = token;
  }

  JsonNode clusterQueue(String name) {
    return get("/visibility/v1/clusterqueues/" + enc(name) + "/pendingworkloads");
  }

  JsonNode localQueue(String namespace, String name) {
    return get("/visibility/v1/namespaces/" + enc(namespace) + "/localqueues/" + enc(name)
        + "/pendingworkloads");
  }

  private JsonNode get(String path) {
    HttpURLConnection c;
    try {
      c = (HttpURLConnection) URI.create(base + path).toURL().openConnection();
      c.setConnectTimeout(5_000);
      c.setReadTimeout(10_000);
      c.setRequestProperty("Authorization", "Bearer " + token);
      c.setRequestProperty("Accept", "application/json");
      int code = c.getResponseCode();
      InputStream body = code >= 400 ? c.getErrorStream() : c.getInputStream();
      JsonNode json = body == null ? null : Kubectl.JSON.readTree(body);
      if (code != 200) {
        String message = json != null && json.has("message") ? json.get("message").asText() : "";
        throw new Failure("visibility API " + base + path + " answered " + code
            + (message.isEmpty() ? "" : ": " + message));
      }
      return json;
    } catch (IOException e) {
      throw new Failure("cannot reach the visibility API at " + base + " (" + e.getMessage()
          + "); set --visibility-url or BERTH_VISIBILITY_URL, e.g. after"
          + " kubectl -n berth-system port-forward svc/berth-operator 8080");
    }
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }
}
