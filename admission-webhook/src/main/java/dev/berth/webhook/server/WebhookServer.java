package dev.berth.webhook.server;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.file.FileSystemOptions;
import io.vertx.core.http.Http2Settings;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.net.KeyCertOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.X509KeyManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTPS endpoint the API server calls: AdmissionReview v1 in, AdmissionReview v1 out, served by
 * Vert.x. Every replica serves it (it holds no leader-only state).
 *
 * <p>Why this shape: Netty's acceptor only accepts; TLS handshakes and HTTP parsing run on a few
 * event loops, so a burst of new connections never queues behind one thread. Handlers run on a
 * fixed pool with a bounded queue; when that queue is full the caller gets an immediate 503 instead
 * of a hang that would run into the API server's timeout. Garbage gets a 4xx, a handler failure a
 * refusal with a message. {@link #stop()} drains: new requests get 503, requests in flight are
 * answered, then the port closes.
 */
public final class WebhookServer {
  private static final Logger LOG = LoggerFactory.getLogger(WebhookServer.class);

  /** An object and its old version are each at most ~1.5 MiB in etcd; allow both plus framing. */
  static final int MAX_BODY_BYTES = 8 * 1024 * 1024;

  /** Streams one HTTP/2 connection may have open; past that the client opens another. */
  static final long MAX_STREAMS = 1000;

  private final Map<String, AdmissionHandler> routes;
  private final X509KeyManager keys;
  private final Limits limits;
  private final AtomicInteger inFlight = new AtomicInteger();
  private volatile boolean draining;
  private Vertx vertx;
  private HttpServer server;
  private ThreadPoolExecutor handlers;

  /**
   * How much the server takes on. {@code handlerThreads} evaluate AdmissionReviews; at most {@code
   * queuedRequests} more wait for one, beyond that a request is refused with 503. A request not
   * fully received within {@code requestTimeout} closes its connection (a client that dribbles
   * bytes cannot hold a connection forever); {@code drainTimeout} bounds how long {@link #stop()}
   * waits for requests in flight. {@code http2} offers HTTP/2 by ALPN (on in production; off only
   * to measure what it buys).
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

  /**
   * @param keys serving key manager; a {@code ServingKeyManager} swaps its certificate while the
   *     server runs, and new handshakes get the new one
   */
  public WebhookServer(Map<String, AdmissionHandler> routes, X509KeyManager keys, int threads) {
    this(routes, keys, Limits.withThreads(threads));
  }

  public WebhookServer(Map<String, AdmissionHandler> routes, X509KeyManager keys, Limits limits) {
    this.routes = Map.copyOf(routes);
    this.keys = keys;
    this.limits = limits;
  }

  /** Starts on all interfaces; port 0 picks a free port. Returns the bound port. */
  public synchronized int start(int port) throws IOException {
    return start("0.0.0.0", port);
  }

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
              Thread t = new Thread(r, "berth-webhook-" + n.incrementAndGet());
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
            // HTTP/2 when the caller offers it (kube-apiserver's webhook client does): many reviews
            // share one connection, so a burst costs streams, not TLS handshakes.
            .setUseAlpn(limits.http2())
            .setAlpnVersions(
                limits.http2()
                    ? List.of(HttpVersion.HTTP_2, HttpVersion.HTTP_1_1)
                    : List.of(HttpVersion.HTTP_1_1))
            .setInitialSettings(new Http2Settings().setMaxConcurrentStreams(MAX_STREAMS));
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
    LOG.info("Berth webhooks listening on https://{}:{}", host, server.actualPort());
    return server.actualPort();
  }

  public synchronized int port() {
    return server == null ? -1 : server.actualPort();
  }

  /** Requests evaluated or waiting for a handler thread right now. */
  public int inFlight() {
    return inFlight.get();
  }

  /**
   * Graceful stop: from now on new requests get 503 (the API server retries another replica or
   * applies the failure policy), requests already received are answered, then the port closes.
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
      LOG.warn("stopping with {} webhook requests still in flight", inFlight.get());
    }
    closeQuietly();
  }

  private void closeQuietly() {
    try {
      if (vertx != null) {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
      }
    } catch (ExecutionException | TimeoutException e) {
      LOG.warn("webhook server did not close cleanly: {}", e.toString());
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
              LOG.debug("webhook request not received within {}; closing", limits.requestTimeout());
              if (request.version() == HttpVersion.HTTP_2) {
                request.response().reset(); // this stream only: others share the connection
              } else {
                request.connection().close();
              }
            });
    request.handler(body::append);
    request.exceptionHandler(e -> LOG.debug("webhook request failed: {}", e.toString()));
    request.endHandler(
        v -> {
          vx.cancelTimer(timer);
          route(request, body, pool);
        });
  }

  /**
   * Answers once the whole request is read, even to refuse it: a reply sent while the client is
   * still writing is lost when the connection is closed under it.
   */
  private void route(HttpServerRequest request, RequestBody body, ThreadPoolExecutor pool) {
    String path = request.path();
    HttpServerResponse response = request.response();
    if (WebhookPaths.HEALTH.equals(path)) {
      if (draining) {
        sendError(response, 503, "shutting down");
      } else {
        send(response, 200, "ok".getBytes(StandardCharsets.UTF_8), "text/plain");
      }
      return;
    }
    AdmissionHandler handler = routes.get(path);
    if (handler == null) {
      sendError(response, 404, "no webhook at " + path);
      return;
    }
    if (request.method() != HttpMethod.POST) {
      sendError(response, 405, "AdmissionReviews are POSTed");
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
      sendError(response, 503, "the Berth webhook is shutting down; retry another replica");
      return;
    }
    byte[] bytes = body.bytes();
    Context context = Vertx.currentContext();
    inFlight.incrementAndGet();
    try {
      pool.execute(
          () -> {
            try {
              Answer answer = evaluate(handler, path, bytes);
              context.runOnContext(
                  v -> send(response, answer.code(), answer.body(), "application/json"));
            } finally {
              finished();
            }
          });
    } catch (RejectedExecutionException e) {
      finished();
      LOG.warn("webhook saturated ({} requests waiting); answering 503", limits.queuedRequests());
      response.putHeader("Retry-After", "1");
      sendError(response, 503, "the Berth webhook is saturated; retry");
    }
  }

  private void finished() {
    if (inFlight.decrementAndGet() == 0 && draining) {
      synchronized (inFlight) {
        inFlight.notifyAll();
      }
    }
  }

  private record Answer(int code, byte[] body) {}

  /** On a handler thread: parse, decide, render. Never throws. */
  private static Answer evaluate(AdmissionHandler handler, String path, byte[] body) {
    AdmissionCall call;
    try {
      call = AdmissionReviewCodec.parse(body);
    } catch (MalformedReviewException e) {
      return new Answer(400, errorBody(400, e.getMessage()));
    } catch (RuntimeException | StackOverflowError e) {
      LOG.warn("unexpected failure reading a webhook request", e);
      return new Answer(400, errorBody(400, "unreadable AdmissionReview"));
    }
    return new Answer(200, AdmissionReviewCodec.render(call, decide(handler, call, path)));
  }

  private static AdmissionAnswer decide(AdmissionHandler handler, AdmissionCall call, String path) {
    try {
      return handler.handle(call);
    } catch (RuntimeException | StackOverflowError e) {
      // Refuse rather than allow: for a managed Job, "allowed" could mean running unsuspended.
      LOG.warn(
          "webhook {} failed on {} {}/{}",
          path,
          call.operation(),
          call.namespace(),
          call.name(),
          e);
      return new AdmissionAnswer.Refuse(
          400,
          "BadRequest",
          "the Berth webhook could not evaluate this "
              + (call.kind() == null ? "object" : call.kind())
              + ": "
              + e.getClass().getSimpleName());
    }
  }

  private static byte[] errorBody(int code, String message) {
    ObjectNode status = JsonNodeFactory.instance.objectNode();
    status.put("kind", "Status");
    status.put("apiVersion", "v1");
    status.put("status", "Failure");
    status.put("code", code);
    status.put("message", message);
    return AdmissionReviewCodec.bytes(status);
  }

  private static void sendError(HttpServerResponse response, int code, String message) {
    send(response, code, errorBody(code, message), "application/json");
  }

  private static void send(HttpServerResponse response, int code, byte[] body, String type) {
    if (response.closed() || response.ended()) {
      return;
    }
    response.setStatusCode(code).putHeader("Content-Type", type).end(Buffer.buffer(body));
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
