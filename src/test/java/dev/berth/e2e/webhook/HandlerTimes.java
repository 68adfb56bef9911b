package dev.berth.e2e.webhook;

import dev.berth.webhook.server.AdmissionHandler;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Time spent inside the webhook handlers, to tell the webhook's own latency apart from the API
 * server's and the client's in the concurrency test.
 */
final class HandlerTimes {
  private final ConcurrentLinkedQueue<Long> micros = new ConcurrentLinkedQueue<>();

  Map<String, AdmissionHandler> wrap(Map<String, AdmissionHandler> routes) {
    Map<String, AdmissionHandler> timed = new LinkedHashMap<>();
    routes.forEach(
        (path, handler) ->
            timed.put(
                path,
                call -> {
                  long start = System.nanoTime();
                  try {
                    return handler.handle(call);
                  } finally {
                    micros.add((System.nanoTime() - start) / 1_000);
                  }
                }));
    return timed;
  }

  void reset() {
    micros.clear();
  }

  /** The slowest handler call, in milliseconds (0 without calls). */
  double maxMillis() {
    return micros.stream().mapToLong(Long::longValue).max().orElse(0) / 1000.0;
  }

  String summary() {
    List<Long> sorted = new ArrayList<>(micros);
    sorted.sort(null);
    if (sorted.isEmpty()) {
      return "no calls";
    }
    return String.format(
        "handler calls=%d p50=%.2f ms p99=%.2f ms max=%.2f ms",
        sorted.size(),
        sorted.get(sorted.size() / 2) / 1000.0,
        sorted.get(Math.min(sorted.size() - 1, (int) (sorted.size() * 0.99))) / 1000.0,
        sorted.get(sorted.size() - 1) / 1000.0);
  }
}
