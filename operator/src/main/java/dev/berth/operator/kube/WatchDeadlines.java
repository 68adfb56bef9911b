package dev.berth.operator.kube;

import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.fabric8.kubernetes.client.http.WebSocket;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A deadline for the upgrade of the informers' WebSocket watches, which fabric8 opens without any:
 * a watch opened while kube-apiserver restarts (or through a proxy or load balancer that loses it)
 * can get no answer at all, and its informer then waits on it for ever and hears no event again.
 * That was the fault suite's second stall: the leader's Job and Workload informers went silent
 * after a kube-apiserver restart, finished Jobs never gave their quota back and the cohort stayed
 * full. The server-side {@code timeoutSeconds} of a watch cannot help: the server that would apply
 * it never got the request.
 *
 * <p>An upgrade not answered within the deadline fails, and fabric8 opens the watch again from its
 * last resourceVersion, as after any dropped connection. kube-apiserver answers an upgrade in
 * milliseconds; the deadline is far above that on a loaded machine.
 */
public final class WatchDeadlines implements Interceptor {
  /** The interceptor's name in the client's chain. */
  static final String NAME = "berth-watch-deadlines";

  /** The upgrade of a WebSocket watch. */
  public static final Duration HANDSHAKE = Duration.ofSeconds(30);

  private final Duration handshake;

  WatchDeadlines(Duration handshake) {
    this.handshake = handshake;
  }

  @Override
  public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
    // Other requests have the client's request timeout already.
    if (builder instanceof WebSocket.Builder webSocket && isWatch(request)) {
      webSocket.connectTimeout(handshake.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  static boolean isWatch(HttpRequest request) {
    return isWatch(request.uri());
  }

  static boolean isWatch(URI uri) {
    String query = uri.getRawQuery();
    if (query == null) {
      return false;
    }
    for (String parameter : query.split("&")) {
      if (parameter.equals("watch=true") || parameter.equals("watch=1")) {
        return true;
      }
    }
    return false;
  }
}
