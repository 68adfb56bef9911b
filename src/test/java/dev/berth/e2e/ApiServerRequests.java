package dev.berth.e2e;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Counts the API server's own tally of requests (apiserver_request_total on its /metrics), so a
 * test can say how many LISTs of a resource were made in a window, by any client. On a dedicated
 * API server whose test reads by name, GET and watch only, those are the operator's.
 */
final class ApiServerRequests {
  private static final Pattern LINE = Pattern.compile("^apiserver_request_total\\{(.*)} (\\S+)$");

  private ApiServerRequests() {}

  /** Requests so far with this verb (LIST, GET, WATCH ...) on this resource (no subresource). */
  static long count(KubernetesClient admin, String verb, String resource) {
    long total = 0;
    for (String line : admin.raw("/metrics").split("\n")) {
      Matcher m = LINE.matcher(line);
      if (m.matches()
          && m.group(1).contains("verb=\"" + verb + "\"")
          && m.group(1).contains("resource=\"" + resource + "\"")
          && m.group(1).contains("subresource=\"\"")) {
        total += (long) Double.parseDouble(m.group(2));
      }
    }
    return total;
  }
}
