package dev.berth.operator.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;

/** Prometheus text at /metrics, liveness at /healthz and readiness at /readyz, on one port. */
public final class MetricsServer implements AutoCloseable {
  private final HttpServer server;

  public MetricsServer(
      int port, PrometheusMeterRegistry registry, BooleanSupplier live, BooleanSupplier ready)
      throws IOException {
    server = HttpServer.create(new InetSocketAddress(port), 0);
    server.createContext(
        "/metrics",
        exchange ->
            respond(exchange, 200, "text/plain; version=0.0.4; charset=utf-8", registry.scrape()));
    server.createContext("/healthz", exchange -> probe(exchange, live));
    server.createContext("/readyz", exchange -> probe(exchange, ready));
    server.setExecutor(Executors.newFixedThreadPool(2, r -> daemon(r, "berth-metrics-http")));
  }

  /** Serves another path on the same port (the usage report). */
  public MetricsServer route(String path, com.sun.net.httpserver.HttpHandler handler) {
    server.createContext(path, handler);
    return this;
  }

  public MetricsServer start() {
    server.start();
    return this;
  }

  public int port() {
    return server.getAddress().getPort();
  }

  private static void probe(HttpExchange exchange, BooleanSupplier check) throws IOException {
    boolean ok = check.getAsBoolean();
    respond(exchange, ok ? 200 : 503, "text/plain", ok ? "ok\n" : "not ready\n");
  }

  private static void respond(HttpExchange exchange, int code, String type, String body)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", type);
    exchange.sendResponseHeaders(code, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  private static Thread daemon(Runnable runnable, String name) {
    Thread thread = new Thread(runnable, name);
    thread.setDaemon(true);
    return thread;
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
