package dev.berth.bench.load;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The API server's own count of requests (apiserver_request_total from its /metrics), summed by
 * verb and resource (with the subresource, e.g. workloads/status). A snapshot before and one after
 * a run give what the run asked of it, whoever asked.
 */
final class ApiRequests {
  private static final Pattern LINE = Pattern.compile("^apiserver_request_total\\{(.*)} (\\S+)$");
  private static final Pattern LABEL = Pattern.compile("(\\w+)=\"([^\"]*)\"");

  private final Map<String, Long> counts;

  private ApiRequests(Map<String, Long> counts) {
    this.counts = counts;
  }

  static ApiRequests scrape(KubernetesClient admin) {
    Map<String, Long> counts = new TreeMap<>();
    for (String line : admin.raw("/metrics").split("\n")) {
      Matcher m = LINE.matcher(line);
      if (!m.matches()) {
        continue;
      }
      Map<String, String> labels = new TreeMap<>();
      Matcher l = LABEL.matcher(m.group(1));
      while (l.find()) {
        labels.put(l.group(1), l.group(2));
      }
      String resource = labels.getOrDefault("resource", "");
      if (resource.isEmpty()) {
        continue; // /metrics, /healthz and the like
      }
      String sub = labels.getOrDefault("subresource", "");
      String key = labels.get("verb") + " " + resource + (sub.isEmpty() ? "" : "/" + sub);
      counts.merge(key, (long) Double.parseDouble(m.group(2)), Long::sum);
    }
    return new ApiRequests(counts);
  }

  /**
   * The requests of {@code diff} less those of the simulated kubelets' heartbeats (Lease renewals
   * and Node status, which grow with nodes times seconds, not with Jobs) and of leader Leases.
   */
  static long withoutHeartbeats(Map<String, Long> diff) {
    return diff.entrySet().stream()
        .filter(e -> !heartbeat(e.getKey()))
        .mapToLong(Map.Entry::getValue)
        .sum();
  }

  private static boolean heartbeat(String key) {
    String resource = key.substring(key.indexOf(' ') + 1);
    return resource.equals("leases") || resource.equals("nodes/status");
  }

  /** What was asked between {@code before} and this snapshot, zero counts left out. */
  Map<String, Long> since(ApiRequests before) {
    Map<String, Long> diff = new TreeMap<>();
    counts.forEach(
        (key, n) -> {
          long d = n - before.counts.getOrDefault(key, 0L);
          if (d != 0) {
            diff.put(key, d);
          }
        });
    return diff;
  }
}
