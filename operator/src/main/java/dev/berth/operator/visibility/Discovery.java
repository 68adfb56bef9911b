package dev.berth.operator.visibility;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The aggregated API's discovery documents: what the API server's availability check reads ({@code
 * GET /apis/visibility.berth.dev/v1beta1}, which must answer 2xx for the APIService to be
 * Available) and what kubectl's discovery lists. The two pendingworkloads subresources are
 * read-only (verb get).
 */
final class Discovery {
  private Discovery() {}

  static Map<String, Object> group() {
    Map<String, Object> version =
        Map.of(
            "groupVersion",
            VisibilityEndpoint.GROUP + "/" + VisibilityEndpoint.VERSION,
            "version",
            VisibilityEndpoint.VERSION);
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("kind", "APIGroup");
    body.put("apiVersion", "v1");
    body.put("name", VisibilityEndpoint.GROUP);
    body.put("versions", List.of(version));
    body.put("preferredVersion", version);
    return body;
  }

  static Map<String, Object> resources() {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("kind", "APIResourceList");
    body.put("apiVersion", "v1");
    body.put("groupVersion", VisibilityEndpoint.GROUP + "/" + VisibilityEndpoint.VERSION);
    body.put(
        "resources",
        List.of(
            resource("clusterqueues/pendingworkloads", false),
            resource("localqueues/pendingworkloads", true)));
    return body;
  }

  private static Map<String, Object> resource(String name, boolean namespaced) {
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("name", name);
    r.put("singularName", "");
    r.put("namespaced", namespaced);
    r.put("kind", "PendingWorkloadsSummary");
    r.put("verbs", List.of("get"));
    return r;
  }
}
