package dev.berth.e2e.faults;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.berth.webhook.tls.CertificateAuthority;
import dev.berth.webhook.tls.CertificateAuthority.Pem;
import dev.berth.webhook.tls.KeyMaterial;
import io.fabric8.kubernetes.client.Config;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.http.UpgradeRejectedException;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * A TLS-terminating HTTP proxy between the operator processes and kube-apiserver that injects API
 * faults on a {@link FaultSchedule}: 409, 429 (Retry-After: 1) and 500 answered in the API server's
 * own Status form without forwarding; writes forwarded, applied and then left without a reply (the
 * connection dropped: the client cannot tell whether it happened); Workload status writes and Job
 * updates forwarded, applied and then answered 500 or 504 instead of the API server's reply; and
 * watches, over HTTP streaming or WebSocket as the client chooses, piped and then cut. A test can
 * also {@link #arm} one fault for the next write it describes (its path and body), and count the
 * writes like it that follow (a client that re-sends an applied write shows here). It serves its
 * own certificate (a CA of its own that the operators' kubeconfig trusts) and authenticates to the
 * API server with the test's client certificate, so only the operators' traffic meets faults.
 */
final class FaultyApiProxy implements AutoCloseable {
  private static final Set<HttpMethod> WRITES =
      Set.of(HttpMethod.POST, HttpMethod.PUT, HttpMethod.PATCH, HttpMethod.DELETE);

  /** Not forwarded: per connection, or the proxy's own business (credentials, the handshake). */
  private static final Set<String> HOP_BY_HOP =
      Set.of(
          "connection",
          "keep-alive",
          "proxy-connection",
          "transfer-encoding",
          "upgrade",
          "te",
          "trailer",
          "host",
          "authorization",
          "sec-websocket-key",
          "sec-websocket-version",
          "sec-websocket-extensions",
          "sec-websocket-accept",
          "sec-websocket-protocol");

  private static final int MESSAGE_LIMIT = 64 * 1024 * 1024;

  /** A Workload's status subresource (any version of berth.dev). */
  static final Pattern WORKLOAD_STATUS =
      Pattern.compile("/apis/berth\\.dev/[^/]+/namespaces/[^/]+/workloads/[^/]+/status");

  /** A UsageReport's status subresource (any version of berth.dev). */
  static final Pattern USAGE_REPORT_STATUS =
      Pattern.compile("/apis/berth\\.dev/[^/]+/namespaces/[^/]+/usagereports/[^/]+/status");

  /** A batch/v1 Job (not its status). */
  static final Pattern JOB = Pattern.compile("/apis/batch/v1/namespaces/[^/]+/jobs/[^/]+");

  private static final ObjectMapper JSON = new ObjectMapper();

  /** Faults armed by a test, each for the next write it matches. */
  private final List<Armed> armed = new CopyOnWriteArrayList<>();

  private final Vertx vertx = Vertx.vertx();
  private final FaultSchedule schedule;
  private final CertificateAuthority ca;
  private final HttpClient upstream;
  private final HttpServer server;
  private final int upstreamPort;
  private final Map<Fault, AtomicInteger> injected = new EnumMap<>(Fault.class);
  private final AtomicInteger requests = new AtomicInteger();
  private final AtomicInteger upstreamDown = new AtomicInteger();
  private volatile boolean faulting = true;

  /** In front of the API server of {@code adminKubeconfig}, whose credentials it uses. */
  FaultyApiProxy(String adminKubeconfig, FaultSchedule schedule) throws Exception {
    this.schedule = schedule;
    for (Fault f : Fault.values()) {
      injected.put(f, new AtomicInteger());
    }
    Config admin = Config.fromKubeconfig(adminKubeconfig);
    this.upstreamPort = ApiServerReplica.port(adminKubeconfig);
    this.upstream =
        vertx.createHttpClient(
            new HttpClientOptions()
                .setSsl(true)
                .setDefaultHost("127.0.0.1")
                .setDefaultPort(upstreamPort)
                .setTrustOptions(new PemTrustOptions().addCertPath(admin.getCaCertFile()))
                .setKeyCertOptions(
                    new PemKeyCertOptions()
                        .setCertPath(admin.getClientCertFile())
                        .setKeyPath(admin.getClientKeyFile()))
                .setMaxPoolSize(1_000)
                .setMaxWebSockets(1_000)
                .setMaxWebSocketFrameSize(MESSAGE_LIMIT)
                .setMaxWebSocketMessageSize(MESSAGE_LIMIT));
    this.ca = CertificateAuthority.generate("berth-fault-proxy", Duration.ofDays(1));
    KeyMaterial serving = ca.issue(List.of("localhost"), List.of("127.0.0.1"), Duration.ofDays(1));
    this.server =
        vertx.createHttpServer(
            new HttpServerOptions()
                .setHost("127.0.0.1")
                .setPort(0)
                .setSsl(true)
                .setKeyCertOptions(
                    new PemKeyCertOptions()
                        .setKeyValue(Buffer.buffer(Pem.encodeKey(serving.key())))
                        .setCertValue(Buffer.buffer(Pem.encode(serving.leaf()))))
                .setMaxWebSocketFrameSize(MESSAGE_LIMIT)
                .setMaxWebSocketMessageSize(MESSAGE_LIMIT));
    server.requestHandler(this::handle);
    server.listen().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  /**
   * A kubeconfig for the operators: this proxy as the server, its CA as the one to trust, and a
   * token the proxy drops (the operators need no credentials of their own to reach it).
   */
  String kubeconfig() {
    String caData = Base64.getEncoder().encodeToString(ca.certificatePem().getBytes());
    return """
        apiVersion: v1
        kind: Config
        clusters:
        - name: faulty
          cluster:
            server: https://127.0.0.1:%d
            certificate-authority-data: %s
        users:
        - name: operator
          user:
            token: through-the-fault-proxy
        contexts:
        - name: faulty
          context:
            cluster: faulty
            user: operator
            namespace: berth-system
        current-context: faulty
        """
        .formatted(server.actualPort(), caData);
  }

  /** From now on, everything passes untouched (the end of a run: let it settle). */
  void stopFaults() {
    faulting = false;
  }

  Map<Fault, Integer> injected() {
    Map<Fault, Integer> counts = new EnumMap<>(Fault.class);
    injected.forEach((f, n) -> counts.put(f, n.get()));
    return counts;
  }

  int requests() {
    return requests.get();
  }

  /** Requests that found the API server down (restarting) and lost their connection. */
  int upstreamDown() {
    return upstreamDown.get();
  }

  /**
   * One fault armed by a test: the first write (PUT or PATCH) whose path matches {@code path} and
   * whose body {@code body} accepts is forwarded, and once the API server has answered it the
   * client gets {@code fault} instead. Writes to the same path carrying the same resourceVersion
   * afterwards are counted as re-sent ({@link #resent}): the same write again, which a client that
   * retries blindly sends and which the API server then refuses with 409 if the first was applied.
   */
  static final class Armed {
    private final Fault fault;
    private final Pattern path;
    private final Predicate<String> body;
    private volatile String firedPath;
    private volatile String firedVersion;
    private volatile int upstreamCode;
    private final AtomicInteger resent = new AtomicInteger();

    private Armed(Fault fault, Pattern path, Predicate<String> body) {
      this.fault = fault;
      this.path = path;
      this.body = body;
    }

    /** The API server's code for the write that met the fault (2xx: it was applied); 0 before. */
    int upstreamCode() {
      return upstreamCode;
    }

    /** Whether the write met the fault after the API server applied it. */
    boolean appliedAndFailed() {
      return upstreamCode / 100 == 2;
    }

    /** How often the write that met the fault was sent again (same path, same resourceVersion). */
    int resent() {
      return resent.get();
    }

    Fault fault() {
      return fault;
    }

    /** The resourceVersion the faulted write was made from. */
    String version() {
      return firedVersion;
    }
  }

  /** Arms {@code fault} (one that applies first) for the next write matching path and body. */
  Armed arm(Fault fault, Pattern path, Predicate<String> body) {
    if (!fault.applies()) {
      throw new IllegalArgumentException(fault + " is not forwarded to the API server");
    }
    Armed a = new Armed(fault, path, body);
    armed.add(a);
    return a;
  }

  /** A write of the kind the "applied, then 500 / 504" faults are for (status writes, Jobs). */
  private static boolean applyable(HttpServerRequest in) {
    return (in.method() == HttpMethod.PUT || in.method() == HttpMethod.PATCH)
        && (WORKLOAD_STATUS.matcher(in.path()).matches()
            || USAGE_REPORT_STATUS.matcher(in.path()).matches()
            || JOB.matcher(in.path()).matches());
  }

  private void handle(HttpServerRequest in) {
    in.pause();
    requests.incrementAndGet();
    HttpConnection downstream = in.connection();
    boolean watch = isWatch(in);
    if ("websocket".equalsIgnoreCase(in.getHeader("Upgrade"))) {
      Optional<Fault> fault = faulting ? schedule.next(false, watch) : Optional.empty();
      webSocket(in, downstream, fault.isPresent());
      return;
    }
    if (!armed.isEmpty() && applyable(in)) {
      // Read whole to be matched against the armed faults, then forwarded as read.
      in.body()
          .onFailure(e -> downstream.close())
          .onSuccess(
              body -> {
                Armed hit = armedFor(in, body.toString());
                Optional<Fault> fault = hit == null ? scheduled(in, watch) : Optional.of(hit.fault);
                dispatch(in, downstream, fault, body, hit);
              });
      in.resume();
      return;
    }
    dispatch(in, downstream, scheduled(in, watch), null, null);
  }

  /**
   * The armed entry this write fires (each fires once), or null; a write that repeats one already
   * fired (same path, same resourceVersion) is counted on it.
   */
  private synchronized Armed armedFor(HttpServerRequest in, String body) {
    String version = resourceVersion(body);
    Armed hit = null;
    for (Armed a : armed) {
      if (a.firedPath != null) {
        if (a.firedPath.equals(in.path()) && Objects.equals(a.firedVersion, version)) {
          a.resent.incrementAndGet();
        }
      } else if (hit == null && a.path.matcher(in.path()).matches() && a.body.test(body)) {
        a.firedPath = in.path();
        a.firedVersion = version;
        hit = a;
      }
    }
    return hit;
  }

  private static String resourceVersion(String body) {
    try {
      return JSON.readTree(body).path("metadata").path("resourceVersion").asText(null);
    } catch (java.io.IOException e) {
      return null;
    }
  }

  private Optional<Fault> scheduled(HttpServerRequest in, boolean watch) {
    return faulting
        ? schedule.next(WRITES.contains(in.method()), watch, applyable(in))
        : Optional.empty();
  }

  /** Refused here, or forwarded (streamed, or {@code body} when it was read already). */
  private void dispatch(
      HttpServerRequest in,
      HttpConnection downstream,
      Optional<Fault> fault,
      Buffer body,
      Armed hit) {
    if (fault.isPresent() && !fault.get().applies() && fault.get() != Fault.WATCH_DROP) {
      refuse(in, fault.get());
      return;
    }
    upstream
        .request(new RequestOptions().setMethod(in.method()).setURI(in.uri()))
        .onFailure(e -> down(downstream))
        .onSuccess(
            out -> {
              copy(in.headers(), out.headers());
              if (!in.headers().contains("Content-Length") && WRITES.contains(in.method())) {
                out.setChunked(true);
              }
              out.response()
                  .onFailure(e -> downstream.close())
                  .onSuccess(
                      reply -> {
                        if (hit != null) {
                          hit.upstreamCode = reply.statusCode();
                        }
                        answer(in, downstream, out, reply, fault);
                      });
              // The client went away (a closed watch): so does the request upstream.
              in.response()
                  .closeHandler(
                      v -> {
                        if (!in.response().ended()) {
                          out.reset();
                        }
                      });
              if (body == null) {
                in.pipeTo(out);
              } else {
                out.end(body);
              }
            });
  }

  private void answer(
      HttpServerRequest in,
      HttpConnection downstream,
      HttpClientRequest out,
      HttpClientResponse reply,
      Optional<Fault> fault) {
    if (fault.equals(Optional.of(Fault.TIMEOUT_AFTER_APPLY))) {
      // The API server has applied the write; its reply never reaches the client.
      reply
          .body()
          .onComplete(
              done -> {
                injected.get(Fault.TIMEOUT_AFTER_APPLY).incrementAndGet();
                downstream.close();
              });
      return;
    }
    if (fault.isPresent() && fault.get().applies()) {
      // The API server has answered (applied, when it says 2xx); the client hears a failure.
      Fault f = fault.get();
      reply.body().onComplete(done -> answerFailure(in, f, reply.statusCode()));
      return;
    }
    HttpServerResponse response =
        in.response().setStatusCode(reply.statusCode()).setStatusMessage(reply.statusMessage());
    copy(reply.headers(), response.headers());
    if (!reply.headers().contains("Content-Length")) {
      response.setChunked(true);
    }
    if (fault.equals(Optional.of(Fault.WATCH_DROP))) {
      vertx.setTimer(
          schedule.dropAfterMillis(),
          t -> {
            if (!response.ended() && !response.closed()) {
              injected.get(Fault.WATCH_DROP).incrementAndGet();
              downstream.close(); // and the close handler resets the request upstream
            }
          });
    }
    // Streamed as it comes (a watch never ends); a broken upstream breaks the connection too.
    reply.pipe().endOnFailure(false).to(response).onFailure(e -> downstream.close());
  }

  private void webSocket(HttpServerRequest in, HttpConnection downstream, boolean drop) {
    WebSocketConnectOptions options =
        new WebSocketConnectOptions()
            .setHost("127.0.0.1")
            .setPort(upstreamPort)
            .setSsl(true)
            .setURI(in.uri());
    MultiMap headers = MultiMap.caseInsensitiveMultiMap();
    copy(in.headers(), headers);
    headers.forEach(h -> options.addHeader(h.getKey(), h.getValue()));
    String protocols = in.getHeader("Sec-WebSocket-Protocol");
    if (protocols != null) {
      options.setSubProtocols(List.of(protocols.split("\\s*,\\s*")));
    }
    upstream
        .webSocket(options)
        .onComplete(
            connected -> {
              if (connected.failed()) {
                if (connected.cause() instanceof UpgradeRejectedException rejected) {
                  HttpServerResponse response = in.response().setStatusCode(rejected.getStatus());
                  copy(rejected.getHeaders(), response.headers());
                  response.end(rejected.getBody() == null ? Buffer.buffer() : rejected.getBody());
                } else {
                  down(downstream);
                }
                return;
              }
              // From here on the API server's messages and its close are relayed or held: after
              // a restart it answers a watch from an old resourceVersion with a 410 and closes at
              // once, before the operator's side is upgraded; dropped, they left the operator's
              // watch open and silent for good (the fault suite's second stall).
              WebSocketRelay relay = new WebSocketRelay(connected.result(), downstream);
              in.toWebSocket()
                  .onComplete(
                      accepted -> {
                        if (accepted.failed()) {
                          relay.abort();
                          return;
                        }
                        relay.attach(accepted.result());
                        if (drop) {
                          vertx.setTimer(
                              schedule.dropAfterMillis(),
                              t -> {
                                if (relay.cut()) {
                                  injected.get(Fault.WATCH_DROP).incrementAndGet();
                                }
                              });
                        }
                      });
            });
  }

  /**
   * 500 or 504 in kube-apiserver's words, in place of the reply to a write the API server has
   * answered ({@code upstreamCode}: applied when 2xx; counted as injected only then, since a write
   * the API server refused was not applied and is no ambiguous write).
   */
  private void answerFailure(HttpServerRequest in, Fault fault, int upstreamCode) {
    if (upstreamCode / 100 == 2) {
      injected.get(fault).incrementAndGet();
    }
    int code = fault == Fault.APPLIED_THEN_504 ? 504 : 500;
    String reason = code == 504 ? "Timeout" : "InternalError";
    String message =
        code == 504
            ? "Timeout: request did not complete within the allotted timeout"
                + " (injected by the fault proxy after the API server applied it)"
            : "Internal error (injected by the fault proxy after the API server applied it)";
    String body =
        """
        {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",\
        "message":"%s","reason":"%s","details":{},"code":%d}"""
            .formatted(message, reason, code);
    in.response().setStatusCode(code).putHeader("Content-Type", "application/json").end(body);
  }

  /** A refusal as kube-apiserver words it: a Status object, the request never forwarded. */
  private void refuse(HttpServerRequest in, Fault fault) {
    injected.get(fault).incrementAndGet();
    int code =
        switch (fault) {
          case CONFLICT -> 409;
          case TOO_MANY_REQUESTS -> 429;
          default -> 500;
        };
    String reason =
        switch (fault) {
          case CONFLICT -> "Conflict";
          case TOO_MANY_REQUESTS -> "TooManyRequests";
          default -> "InternalError";
        };
    String body =
        """
        {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",\
        "message":"injected by the fault proxy: %s","reason":"%s",\
        "details":{"retryAfterSeconds":1},"code":%d}"""
            .formatted(fault, reason, code);
    in.resume();
    in.end()
        .onComplete(
            read -> {
              HttpServerResponse response =
                  in.response().setStatusCode(code).putHeader("Content-Type", "application/json");
              if (fault == Fault.TOO_MANY_REQUESTS) {
                response.putHeader("Retry-After", "1");
              }
              response.end(body);
            });
  }

  /** The API server is not there (restarting): the client sees its connection go. */
  private void down(HttpConnection downstream) {
    upstreamDown.incrementAndGet();
    downstream.close();
  }

  private static boolean isWatch(HttpServerRequest in) {
    String watch = in.getParam("watch");
    return "true".equals(watch) || "1".equals(watch);
  }

  private static void copy(MultiMap from, MultiMap to) {
    List<String> names = new ArrayList<>(from.names());
    for (String name : names) {
      if (!HOP_BY_HOP.contains(name.toLowerCase(java.util.Locale.ROOT))) {
        to.set(name, from.getAll(name));
      }
    }
  }

  @Override
  public void close() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }
}
