package dev.berth.webhook.server;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.file.FileSystemOptions;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.http.Http2Settings;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.net.KeyCertOptions;
import io.vertx.core.net.TrustOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import javax.net.ssl.X509KeyManager;
import javax.net.ssl.X509TrustManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An HTTPS server on Vert.x whose handlers may block: the webhooks ({@link WebhookServer}) and the
 * operator's HTTPS port (visibility API, dashboard: each request waits on a TokenReview and
 * SubjectAccessReviews) are served by it.
 *
 * <p>Why this shape: Netty's acceptor only accepts; TLS handshakes and HTTP parsing run on a few
 * event loops, so a burst of new connections never queues behind one thread (the JDK's {@code
 * HttpsServer} did every handshake on its one dispatcher thread and fell behind at 50 clients at
 * once). Handlers run on a fixed pool with a bounded queue; when that queue is full the caller gets
 * an immediate 503 instead of a hang. A request not fully received in time closes its connection, a
 * body over {@link #MAX_BODY_BYTES} is refused after it is read. {@link #stop()} drains: new
 * requests get 503, requests in flight are answered, then the port closes.
 */
public final class AsyncHttpsServer {
  private static final Logger LOG = LoggerFactory.getLogger(AsyncHttpsServer.class);

  /** An object and its old version are each at most ~1.5 MiB in etcd; allow both plus framing. */
  static final int MAX_BODY_BYTES = 8 * 1024 * 1024;

  /** Streams one HTTP/2 connection may have open; past that the client opens another. */
  static final long MAX_STREAMS = 1000;

  /**
   * One request, read whole. {@code header} looks a header up by name, case-insensitively; {@code
   * clientCertificates} is the chain the client presented and the server's client trust verified
   * (empty when it presented none, or when the server asks for none).
   */
  public record Request(
      String method,
      String path,
      HeaderLookup header,
      byte[] body,
      List<X509Certificate> clientCertificates) {
    public Request {
      clientCertificates = List.copyOf(clientCertificates);
    }

    public Request(String method, String path, HeaderLookup header, byte[] body) {
      this(method, path, header, body, List.of());
    }
  }

  /** A request's headers. */
  @FunctionalInterface
  public interface HeaderLookup {
    /** The first value of the header, or null. */
    String get(String name);

    /** Every value of the header, in order (a header sent several times has several). */
    default List<String> all(String name) {
      String value = get(name);
      return value == null ? List.of() : List.of(value);
    }

    /** The names of the headers sent, as sent (none when the lookup cannot list them). */
    default List<String> names() {
      return List.of();
    }
  }

  /** One answer: status, Content-Type, further headers, body. */
  public record Reply(int code, String contentType, Map<String, String> headers, byte[] body) {
    public Reply {
      headers = Map.copyOf(headers);
    }
  }

  /** Answers one request on a handler thread; may block (API server calls). Must not throw. */
  @FunctionalInterface
  public interface Handler {
    Reply handle(Request request);
  }

  /**
   * A path's handler and the one method it takes; other methods get 405 at once. A route whose path
   * ends with '/' also serves every path below it (the longest such prefix wins).
   */
  public record Route(String method, Handler handler) {}

  /**
   * How much the server takes on. {@code handlerThreads} run handlers; at most {@code
   * queuedRequests} more wait for one, beyond that a request is refused with 503. A request not
   * fully received within {@code requestTimeout} closes its connection (a client that dribbles
   * bytes cannot hold a connection forever); {@code drainTimeout} bounds how long {@link #stop()}
   * waits for requests in flight. {@code http2} offers HTTP/2 by ALPN.
   */
  public record Limits(
      int handlerThreads,
      int queuedRequests,
      Duration requestTimeout,
      Duration drainTimeout,
      boolean http2) {
    public Limits {
      if (handlerThreads < 1 || queuedRequests < 1) {
        throw new IllegalArgumentException("handlerThreads and queuedRequests must be positive");
      }
    }

    public static Limits withThreads(int handlerThreads) {
      return new Limits(handlerThreads, 1024, Duration.ofSeconds(30), Duration.ofSeconds(10), true);
    }

    public Limits withHttp2(boolean enabled) {
      return new Limits(handlerThreads, queuedRequests, requestTimeout, drainTimeout, enabled);
    }
  }

  private final String name;
  private final Map<String, Route> routes;
  private final String healthPath;
  private final X509KeyManager keys;
  private final Limits limits;
  private final X509TrustManager clientTrust;
  private final AtomicInteger inFlight = new AtomicInteger();
  private volatile boolean draining;
  private Vertx vertx;
  private HttpServer server;
  private ThreadPoolExecutor handlers;

  /**
   * @param name what the logs and the handler threads are called ({@code berth-<name>-N})
   * @param healthPath answered 200 "ok" on the event loop (503 while draining); null for none
   * @param keys serving key manager; a {@code ServingKeyManager} swaps its certificate while the
   *     server runs, and new handshakes get the new one
   */
  public AsyncHttpsServer(
      String name,
      Map<String, Route> routes,
      String healthPath,
      X509KeyManager keys,
      Limits limits) {
    this(name, routes, healthPath, keys, limits, null);
  }

  /**
   * As above, and asks callers for a client certificate (optional: a caller without one is served
   * too), which {@code clientTrust} must verify, else the handshake fails; the verified chain is in
   * {@link Request#clientCertificates()}. Null asks for none.
   */
  public AsyncHttpsServer(
      String name,
      Map<String, Route> routes,
      String healthPath,
      X509KeyManager keys,
      Limits limits,
      X509TrustManager clientTrust) {
    this.name = name;
    this.routes = Map.copyOf(routes);
    this.healthPath = healthPath;
    this.keys = keys;
    this.limits = limits;
    this.clientTrust = clientTrust;
  }

  /** Starts on {@code host:port}; port 0 picks a free port. Returns the bound port. */
  public synchronized int start(String host, int port) throws IOException {
    if (server != null) {
      throw new IllegalStateException("already started");
    }
    AtomicInteger n = new AtomicInteger();
    handlers =
        new ThreadPoolExecutor(
            limits.handlerThreads(),
            limits.handlerThreads(),
            60,
            TimeUnit.SECONDS,
            new ArrayBlockingQueue<>(limits.queuedRequests()),
            r -> {
              Thread t = new Thread(r, "berth-" + name + "-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            },
            new ThreadPoolExecutor.AbortPolicy());
    // No file cache and no classpath resolving: the process may run on a read-only root
    // filesystem, and Vert.x would otherwise create .vertx/ in the working directory.
    vertx =
        Vertx.vertx(
            new VertxOptions()
                .setEventLoopPoolSize(Math.max(2, Runtime.getRuntime().availableProcessors()))
                .setWorkerPoolSize(1)
                .setFileSystemOptions(
                    new FileSystemOptions()
                        .setFileCachingEnabled(false)
                        .setClassPathResolvingEnabled(false)));
    HttpServerOptions options =
        new HttpServerOptions()
            .setHost(host)
            .setPort(port)
            .setSsl(true)
            .setKeyCertOptions(KeyCertOptions.wrap(keys))
            .setSslHandshakeTimeout(10)
            .setSslHandshakeTimeoutUnit(TimeUnit.SECONDS)
            .setIdleTimeout(90)
            .setIdleTimeoutUnit(TimeUnit.SECONDS)
            .setTcpNoDelay(true)
            .setAcceptBacklog(1024)
            .setCompressionSupported(false)
            // HTTP/2 when the caller offers it (kube-apiserver's webhook client does): many
            // requests share one connection, so a burst costs streams, not TLS handshakes.
            .setUseAlpn(limits.http2())
            .setAlpnVersions(
                limits.http2()
                    ? List.of(HttpVersion.HTTP_2, HttpVersion.HTTP_1_1)
                    : List.of(HttpVersion.HTTP_1_1))
            .setInitialSettings(new Http2Settings().setMaxConcurrentStreams(MAX_STREAMS));
    if (clientTrust != null) {
      options.setClientAuth(ClientAuth.REQUEST).setTrustOptions(TrustOptions.wrap(clientTrust));
    }
    draining = false;
    try {
      Vertx vx = vertx;
      ThreadPoolExecutor pool = handlers;
      server =
          vertx
              .createHttpServer(options)
              .requestHandler(r -> accept(r, vx, pool))
              .listen()
              .toCompletionStage()
              .toCompletableFuture()
              .get(30, TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      closeQuietly();
      throw new IOException("cannot listen on " + host + ":" + port, e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      closeQuietly();
      throw new IOException("interrupted while starting", e);
    }
    LOG.info("Berth {} listening on https://{}:{}", name, host, server.actualPort());
    return server.actualPort();
  }

  public synchronized int port() {
    return server == null ? -1 : server.actualPort();
  }

  /** Requests handled or waiting for a handler thread right now. */
  public int inFlight() {
    return inFlight.get();
  }

  /**
   * Graceful stop: from now on new requests get 503 (a client retries another replica), requests
   * already received are answered, then the port closes.
   */
  public synchronized void stop() {
    if (server == null) {
      return;
    }
    draining = true;
    long deadline = System.nanoTime() + limits.drainTimeout().toNanos();
    synchronized (inFlight) {
      while (inFlight.get() > 0 && System.nanoTime() < deadline) {
        try {
          inFlight.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
    }
    if (inFlight.get() > 0) {
      LOG.warn("stopping {} with {} requests still in flight", name, inFlight.get());
    }
    closeQuietly();
  }

  private void closeQuietly() {
    try {
      if (vertx != null) {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
      }
    } catch (ExecutionException | TimeoutException e) {
      LOG.warn("{} did not close cleanly: {}", name, e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      if (handlers != null) {
        handlers.shutdownNow();
      }
      server = null;
      vertx = null;
      handlers = null;
    }
  }

  /** On an event loop: collect the body (bounded), then answer. */
  private void accept(HttpServerRequest request, Vertx vx, ThreadPoolExecutor pool) {
    RequestBody body = new RequestBody();
    long timer =
        vx.setTimer(
            limits.requestTimeout().toMillis(),
            id -> {
              LOG.debug(
                  "{} request not received within {}; closing", name, limits.requestTimeout());
              if (request.version() == HttpVersion.HTTP_2) {
                request.response().reset(); // this stream only: others share the connection
              } else {
                request.connection().close();
              }
            });
    request.handler(body::append);
    request.exceptionHandler(e -> LOG.debug("{} request failed: {}", name, e.toString()));
    request.endHandler(
        v -> {
          vx.cancelTimer(timer);
          route(request, body, pool);
        });
  }

  /** The route of a path: its own, else that of the longest prefix ending with '/'; or null. */
  Route routeOf(String path) {
    Route exact = routes.get(path);
    if (exact != null) {
      return exact;
    }
    Route best = null;
    int bestLength = -1;
    for (Map.Entry<String, Route> e : routes.entrySet()) {
      String prefix = e.getKey();
      if (prefix.endsWith("/") && path.startsWith(prefix) && prefix.length() > bestLength) {
        best = e.getValue();
        bestLength = prefix.length();
      }
    }
    return best;
  }

  /**
   * Answers once the whole request is read, even to refuse it: a reply sent while the client is
   * still writing is lost when the connection is closed under it.
   */
  private void route(HttpServerRequest request, RequestBody body, ThreadPoolExecutor pool) {
    String path = request.path();
    HttpServerResponse response = request.response();
    if (path.equals(healthPath)) {
      if (draining) {
        sendError(response, 503, "shutting down");
      } else {
        send(response, new Reply(200, "text/plain", Map.of(), bytes("ok")));
      }
      return;
    }
    Route route = routeOf(path);
    if (route == null) {
      sendError(response, 404, "nothing at " + path);
      return;
    }
    if (!request.method().name().equals(route.method())) {
      sendError(response, 405, path + " takes " + route.method() + " only");
      return;
    }
    if (body.tooLarge()) {
      sendError(response, 413, "body larger than " + MAX_BODY_BYTES + " bytes");
      return;
    }
    if (draining) {
      if (request.version() != HttpVersion.HTTP_2) {
        response.putHeader("Connection", "close");
      }
      sendError(response, 503, "the Berth " + name + " is shutting down; retry another replica");
      return;
    }
    Request call =
        new Request(
            request.method().name(),
            path,
            headers(request),
            body.bytes(),
            clientCertificates(request));
    Context context = Vertx.currentContext();
    inFlight.incrementAndGet();
    try {
      pool.execute(
          () -> {
            try {
              Reply reply = handle(route.handler(), call);
              context.runOnContext(v -> send(response, reply));
            } finally {
              finished();
            }
          });
    } catch (RejectedExecutionException e) {
      finished();
      LOG.warn("{} saturated ({} requests waiting); answering 503", name, limits.queuedRequests());
      response.putHeader("Retry-After", "1");
      sendError(response, 503, "the Berth " + name + " is saturated; retry");
    }
  }

  private static HeaderLookup headers(HttpServerRequest request) {
    var all = request.headers();
    return new HeaderLookup() {
      @Override
      public String get(String name) {
        return all.get(name);
      }

      @Override
      public List<String> all(String name) {
        return List.copyOf(all.getAll(name));
      }

      @Override
      public List<String> names() {
        return List.copyOf(all.names());
      }
    };
  }

  /** The chain the client presented (verified in the handshake), or none. */
  private List<X509Certificate> clientCertificates(HttpServerRequest request) {
    SSLSession session = clientTrust == null ? null : request.sslSession();
    if (session == null) {
      return List.of();
    }
    try {
      List<X509Certificate> chain = new ArrayList<>();
      for (Certificate c : session.getPeerCertificates()) {
        if (c instanceof X509Certificate x) {
          chain.add(x);
        }
      }
      return chain;
    } catch (SSLPeerUnverifiedException none) {
      return List.of();
    }
  }

  /** A handler that throws answers 500 with the failure's class: the request is never lost. */
  private Reply handle(Handler handler, Request call) {
    try {
      return handler.handle(call);
    } catch (RuntimeException | StackOverflowError e) {
      LOG.warn("{} failed on {} {}", name, call.method(), call.path(), e);
      return new Reply(
          500,
          "application/json",
          Map.of(),
          errorBody(500, "the Berth " + name + " failed: " + e.getClass().getSimpleName()));
    }
  }

  private void finished() {
    if (inFlight.decrementAndGet() == 0 && draining) {
      synchronized (inFlight) {
        inFlight.notifyAll();
      }
    }
  }

  /** A Kubernetes Status body, as the API server and its clients read errors. */
  static byte[] errorBody(int code, String message) {
    ObjectNode status = JsonNodeFactory.instance.objectNode();
    status.put("kind", "Status");
    status.put("apiVersion", "v1");
    status.put("status", "Failure");
    status.put("code", code);
    status.put("message", message);
    return AdmissionReviewCodec.bytes(status);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static void sendError(HttpServerResponse response, int code, String message) {
    send(response, new Reply(code, "application/json", Map.of(), errorBody(code, message)));
  }

  private static void send(HttpServerResponse response, Reply reply) {
    if (response.closed() || response.ended()) {
      return;
    }
    response.setStatusCode(reply.code()).putHeader("Content-Type", reply.contentType());
    reply.headers().forEach(response::putHeader);
    response.end(Buffer.buffer(reply.body()));
  }

  /** The request body up to {@link #MAX_BODY_BYTES}; past that only counted, then refused. */
  private static final class RequestBody {
    private final Buffer buffer = Buffer.buffer();
    private boolean tooLarge;

    void append(Buffer chunk) {
      if (tooLarge) {
        return;
      }
      if (buffer.length() + chunk.length() > MAX_BODY_BYTES) {
        tooLarge = true;
        return;
      }
      buffer.appendBuffer(chunk);
    }

    boolean tooLarge() {
      return tooLarge;
    }

    byte[] bytes() {
      return buffer.getBytes();
    }
  }
}
