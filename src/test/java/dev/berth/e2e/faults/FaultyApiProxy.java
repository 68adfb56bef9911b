package dev.berth.e2e.faults;

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
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TLS-terminating HTTP proxy between the operator processes and kube-apiserver that injects API
 * faults on a {@link FaultSchedule}: 409, 429 (Retry-After: 1) and 500 answered in the API server's
 * own Status form without forwarding; writes forwarded, applied and then left without a reply (the
 * connection dropped: the client cannot tell whether it happened); and watches, over HTTP streaming
 * or WebSocket as the client chooses, piped and then cut. It serves its own certificate (a CA of
 * its own that the operators' kubeconfig trusts) and authenticates to the API server with the
 * test's client certificate, so only the operators' traffic meets faults.
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

  private void handle(HttpServerRequest in) {
    in.pause();
    requests.incrementAndGet();
    HttpConnection downstream = in.connection();
    boolean watch = isWatch(in);
    Optional<Fault> fault =
        faulting ? schedule.next(WRITES.contains(in.method()), watch) : Optional.empty();
    if ("websocket".equalsIgnoreCase(in.getHeader("Upgrade"))) {
      webSocket(in, downstream, fault.isPresent());
      return;
    }
    if (fault.isPresent()
        && fault.get() != Fault.TIMEOUT_AFTER_APPLY
        && fault.get() != Fault.WATCH_DROP) {
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
                  .onSuccess(reply -> answer(in, downstream, out, reply, fault));
              // The client went away (a closed watch): so does the request upstream.
              in.response()
                  .closeHandler(
                      v -> {
                        if (!in.response().ended()) {
                          out.reset();
                        }
                      });
              in.pipeTo(out);
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
