package dev.berth.webhook.server;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTPS endpoint the API server calls: AdmissionReview v1 in, AdmissionReview v1 out. Every
 * replica serves it (it holds no leader-only state). Garbage gets a 4xx, a handler failure a
 * refusal with a message: the API server never sees a 5xx or a hang from us.
 */
public final class WebhookServer {
  private static final Logger LOG = LoggerFactory.getLogger(WebhookServer.class);
  /** An object and its old version are each at most ~1.5 MiB in etcd; allow both plus framing. */
  static final int MAX_BODY_BYTES = 8 * 1024 * 1024;

  static {
    // The JDK server keeps a connection (and a worker) for as long as a client dribbles bytes
    // unless these are set; bound them. They are read once, when the first server is created.
    System.setProperty("sun.net.httpserver.maxReqTime",
        System.getProperty("sun.net.httpserver.maxReqTime", "30"));
    System.setProperty("sun.net.httpserver.maxRspTime",
        System.getProperty("sun.net.httpserver.maxRspTime", "30"));
  }

  private final Map<String, AdmissionHandler> routes;
  private final SSLContext sslContext;
  private final int threads;
  private HttpsServer server;
  private ExecutorService executor;

  /**
   * @param sslContext serving context; with a {@code ServingKeyManager} its certificate can be
   *     swapped while the server runs
   */
  public WebhookServer(Map<String, AdmissionHandler> routes, SSLContext sslContext, int threads) {
    this.routes = Map.copyOf(routes);
    this.sslContext = sslContext;
    this.threads = threads;
  }

  /** Starts on all interfaces; port 0 picks a free port. Returns the bound port. */
  public synchronized int start(int port) throws IOException {
    return start(new InetSocketAddress(port));
  }

  public synchronized int start(String host, int port) throws IOException {
    return start(new InetSocketAddress(InetAddress.getByName(host), port));
  }

  private int start(InetSocketAddress address) throws IOException {
    if (server != null) {
      throw new IllegalStateException("already started");
    }
    AtomicInteger n = new AtomicInteger();
    // Unbounded queue on purpose: the JDK dispatcher does not survive a rejected task, and the
    // API server's own timeout bounds how long a queued request is worth answering.
    executor = new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS,
        new LinkedBlockingQueue<>(), r -> {
          Thread t = new Thread(r, "berth-webhook-" + n.incrementAndGet());
          t.setDaemon(true);
          return t;
        });
    server = HttpsServer.create(address, 256);
    server.setHttpsConfigurator(new HttpsConfigurator(sslContext));
    server.createContext("/", this::serve);
    server.setExecutor(executor);
    server.start();
    int bound = server.getAddress().getPort();
    LOG.info("Berth webhooks listening on https://{}:{}", address.getHostString(), bound);
    return bound;
  }

  public synchronized int port() {
    return server == null ? -1 : server.getAddress().getPort();
  }

  public synchronized void stop() {
    if (server != null) {
      server.stop(1);
      executor.shutdownNow();
      server = null;
    }
  }

  private void serve(HttpExchange exchange) {
    try (exchange) {
      String path = exchange.getRequestURI().getPath();
      // Read the whole request before answering, even to refuse it: a reply sent while the
      // client is still writing is lost when the connection is closed under it.
      byte[] body = readBody(exchange.getRequestBody());
      if (WebhookPaths.HEALTH.equals(path)) {
        send(exchange, 200, "ok".getBytes(StandardCharsets.UTF_8), "text/plain");
        return;
      }
      AdmissionHandler handler = routes.get(path);
      if (handler == null) {
        sendError(exchange, 404, "no webhook at " + path);
        return;
      }
      if (!"POST".equals(exchange.getRequestMethod())) {
        sendError(exchange, 405, "AdmissionReviews are POSTed");
        return;
      }
      if (body == null) {
        sendError(exchange, 413, "body larger than " + MAX_BODY_BYTES + " bytes");
        return;
      }
      AdmissionCall call;
      try {
        call = AdmissionReviewCodec.parse(body);
      } catch (MalformedReviewException e) {
        sendError(exchange, 400, e.getMessage());
        return;
      }
      send(exchange, 200, AdmissionReviewCodec.render(call, decide(handler, call, path)),
          "application/json");
    } catch (IOException e) {
      LOG.debug("connection closed while serving a webhook request: {}", e.toString());
    } catch (RuntimeException | StackOverflowError e) {
      // Closing the exchange (try-with-resources) ends the connection: the caller sees an error
      // at once instead of waiting for its timeout.
      LOG.warn("unexpected failure serving a webhook request", e);
    }
  }

  private static AdmissionAnswer decide(AdmissionHandler handler, AdmissionCall call, String path) {
    try {
      return handler.handle(call);
    } catch (RuntimeException | StackOverflowError e) {
      // Refuse rather than allow: for a managed Job, "allowed" could mean running unsuspended.
      LOG.warn("webhook {} failed on {} {}/{}", path, call.operation(), call.namespace(),
          call.name(), e);
      return new AdmissionAnswer.Refuse(400, "BadRequest",
          "the Berth webhook could not evaluate this " + (call.kind() == null ? "object"
              : call.kind()) + ": " + e.getClass().getSimpleName());
    }
  }

  private static byte[] readBody(InputStream in) throws IOException {
    byte[] body = in.readNBytes(MAX_BODY_BYTES + 1);
    if (body.length > MAX_BODY_BYTES) {
      in.skip(Long.MAX_VALUE);
      return null;
    }
    return body;
  }

  private static void sendError(HttpExchange exchange, int code, String message)
      throws IOException {
    ObjectNode status = JsonNodeFactory.instance.objectNode();
    status.put("kind", "Status");
    status.put("apiVersion", "v1");
    status.put("status", "Failure");
    status.put("code", code);
    status.put("message", message);
    send(exchange, code, AdmissionReviewCodec.bytes(status), "application/json");
  }

  private static void send(HttpExchange exchange, int code, byte[] body, String type)
      throws IOException {
    exchange.getResponseHeaders().set("Content-Type", type);
    exchange.sendResponseHeaders(code, body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }
}
