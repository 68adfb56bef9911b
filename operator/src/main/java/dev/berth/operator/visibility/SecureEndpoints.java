package dev.berth.operator.visibility;

import dev.berth.webhook.server.AsyncHttpsServer;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import javax.net.ssl.X509KeyManager;
import javax.net.ssl.X509TrustManager;

/**
 * The operator's HTTPS port: what callers send bearer tokens to (the visibility API and the
 * dashboard). Separate from the metrics port, which stays plain HTTP for Prometheus and the
 * kubelet's probes. Served with the webhook's serving certificate, whose key manager swaps in a
 * renewed certificate for new handshakes, by the same asynchronous server as the webhooks ({@link
 * AsyncHttpsServer}): TLS handshakes on event loops, so a burst of dashboards and {@code kubectl
 * berth} calls is not served one handshake at a time.
 */
public final class SecureEndpoints implements AutoCloseable {
  /**
   * Handler threads: each request waits on a TokenReview and SubjectAccessReviews (cached per
   * caller) and on the admission loop's answer, so more than the cores, as for the webhooks.
   */
  static final int THREADS = 16;

  private final String host;
  private final int port;
  private final X509KeyManager keys;
  private final X509TrustManager clientTrust;
  private final Map<String, AsyncHttpsServer.Route> routes = new HashMap<>();
  private AsyncHttpsServer server;

  /**
   * Serves {@code host:port} (port 0 picks a free one) with the given serving keys; call {@link
   * #route} for each path, then {@link #start}.
   */
  public SecureEndpoints(String host, int port, X509KeyManager keys) {
    this(host, port, keys, null);
  }

  /**
   * As above, asking callers for a client certificate that {@code clientTrust} verifies (the API
   * server's front-proxy certificate, for the aggregated API); callers without one are served too.
   */
  public SecureEndpoints(String host, int port, X509KeyManager keys, X509TrustManager clientTrust) {
    this.host = host;
    this.port = port;
    this.keys = keys;
    this.clientTrust = clientTrust;
  }

  /** GET requests to {@code path} and, as it ends with '/', to every path below it. */
  public SecureEndpoints route(String path, AsyncHttpsServer.Handler handler) {
    routes.put(path, new AsyncHttpsServer.Route("GET", handler));
    return this;
  }

  public synchronized SecureEndpoints start() throws IOException {
    server =
        new AsyncHttpsServer(
            "https", routes, null, keys, AsyncHttpsServer.Limits.withThreads(THREADS), clientTrust);
    server.start(host, port);
    return this;
  }

  public synchronized int port() {
    return server == null ? -1 : server.port();
  }

  @Override
  public synchronized void close() {
    if (server != null) {
      server.stop();
    }
  }
}
