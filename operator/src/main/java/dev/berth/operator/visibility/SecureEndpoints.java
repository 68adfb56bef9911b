package dev.berth.operator.visibility;

import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.security.GeneralSecurityException;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.X509KeyManager;

/**
 * The operator's HTTPS port: what callers send bearer tokens to (the visibility API and the
 * dashboard). Separate from the metrics port, which stays plain HTTP for Prometheus and the
 * kubelet's probes. Served with the webhook's serving certificate, whose key manager swaps in a
 * renewed certificate for new handshakes.
 */
public final class SecureEndpoints implements AutoCloseable {
  private final HttpsServer server;

  /**
   * Binds {@code host:port} (port 0 picks a free one) with the given serving keys; call {@link
   * #route} for each path, then {@link #start}.
   */
  public SecureEndpoints(String host, int port, X509KeyManager keys) throws IOException {
    server = HttpsServer.create(new InetSocketAddress(host, port), 0);
    try {
      SSLContext tls = SSLContext.getInstance("TLS");
      tls.init(new KeyManager[] {keys}, null, null);
      server.setHttpsConfigurator(new HttpsConfigurator(tls));
    } catch (GeneralSecurityException e) {
      server.stop(0);
      throw new IOException("cannot set up TLS for the HTTPS port", e);
    }
    AtomicInteger n = new AtomicInteger();
    // Each request waits on a TokenReview and SubjectAccessReviews: a few threads, not one.
    server.setExecutor(
        Executors.newFixedThreadPool(
            4,
            r -> {
              Thread thread = new Thread(r, "berth-https-" + n.incrementAndGet());
              thread.setDaemon(true);
              return thread;
            }));
  }

  public SecureEndpoints route(String path, HttpHandler handler) {
    server.createContext(path, handler);
    return this;
  }

  public SecureEndpoints start() {
    server.start();
    return this;
  }

  public int port() {
    return server.getAddress().getPort();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
