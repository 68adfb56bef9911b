package dev.berth.e2e.faults;

import io.vertx.core.Vertx;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetClientOptions;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetServerOptions;
import io.vertx.core.net.NetSocket;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the chart's Service is to the webhooks, for operator replicas that come and go on one
 * machine: a TCP relay on 127.0.0.1 that hands each connection of the API server to one of the
 * ready replicas' webhook ports (its endpoints, set by the test as the endpoints controller would
 * from the replicas' readiness), in turn, the next one if a replica refuses it. TLS passes through
 * untouched: the API server checks the serving certificate of the replica it reached, as it does
 * through a Service. A connection with no replica to take it is closed, and the API server applies
 * the webhook's failurePolicy.
 */
final class WebhookRelay implements AutoCloseable {
  private final Vertx vertx = Vertx.vertx();
  private final NetClient client =
      vertx.createNetClient(new NetClientOptions().setConnectTimeout(2_000));
  private final NetServer server;
  private final int port;
  private final AtomicInteger turn = new AtomicInteger();
  private final AtomicInteger relayed = new AtomicInteger();
  private final AtomicInteger unserved = new AtomicInteger();
  private volatile List<Integer> endpoints = List.of();

  WebhookRelay() throws Exception {
    server = vertx.createNetServer(new NetServerOptions().setHost("127.0.0.1").setPort(0));
    server.connectHandler(this::relay);
    port =
        server
            .listen()
            .toCompletionStage()
            .toCompletableFuture()
            .get(30, TimeUnit.SECONDS)
            .actualPort();
  }

  int port() {
    return port;
  }

  /** The webhook ports of the replicas that are ready now. */
  void endpoints(List<Integer> ports) {
    endpoints = List.copyOf(ports);
  }

  List<Integer> endpoints() {
    return endpoints;
  }

  /** Connections of the API server passed to a replica. */
  int relayed() {
    return relayed.get();
  }

  /** Connections of the API server that no replica took (closed). */
  int unserved() {
    return unserved.get();
  }

  private void relay(NetSocket down) {
    // Nothing may be read before the other side is there to take it.
    down.pause();
    connect(down, endpoints, 0);
  }

  private void connect(NetSocket down, List<Integer> ports, int tried) {
    if (tried >= ports.size()) {
      unserved.incrementAndGet();
      down.close();
      return;
    }
    int to = ports.get(Math.floorMod(turn.getAndIncrement(), ports.size()));
    client
        .connect(to, "127.0.0.1")
        .onComplete(
            connected -> {
              if (connected.failed()) {
                connect(down, ports, tried + 1);
                return;
              }
              NetSocket up = connected.result();
              relayed.incrementAndGet();
              // Either side's end or failure ends the other: a replica killed mid-request is a
              // connection reset to the API server, as through a Service.
              up.pipeTo(down);
              down.pipeTo(up);
            });
  }

  @Override
  public void close() {
    vertx.close().toCompletionStage().toCompletableFuture().orTimeout(10, TimeUnit.SECONDS);
  }
}
