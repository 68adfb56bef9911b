package dev.berth.e2e.prometheus;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real Prometheus server (Debian's `prometheus` package, installed by
 * scripts/prometheus-binary.sh) on a free port, scraping one target every second into a throw-away
 * TSDB. Fails loudly when Prometheus is not installed and cannot be.
 */
public final class PrometheusServer implements AutoCloseable {
  private static final Duration SCRAPE = Duration.ofSeconds(1);

  private final Process process;
  private final Path dir;
  private final int port;
  private final HttpClient http = HttpClient.newHttpClient();

  private PrometheusServer(Process process, Path dir, int port) {
    this.process = process;
    this.dir = dir;
    this.port = port;
  }

  public static Duration scrapeInterval() {
    return SCRAPE;
  }

  /** Starts Prometheus scraping {@code target} (host:port) as job "dcgm"; returns when ready. */
  public static PrometheusServer start(String target) throws IOException {
    String binary = binary();
    Path dir = Files.createTempDirectory("berth-prometheus");
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    // honor_labels: dcgm-exporter's own pod and namespace labels must win over the target's.
    Files.writeString(
        dir.resolve("prometheus.yml"),
        """
        global:
          scrape_interval: %1$ds
          evaluation_interval: %1$ds
        scrape_configs:
          - job_name: dcgm
            honor_labels: true
            static_configs:
              - targets: ["%2$s"]
        """
            .formatted(SCRAPE.toSeconds(), target));
    Process process =
        new ProcessBuilder(
                binary,
                "--config.file=" + dir.resolve("prometheus.yml"),
                "--storage.tsdb.path=" + dir.resolve("data"),
                "--storage.tsdb.retention.time=1h",
                "--web.listen-address=127.0.0.1:" + port)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("prometheus.log").toFile())
            .start();
    PrometheusServer server = new PrometheusServer(process, dir, port);
    try {
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(200))
          .until(
              () -> {
                if (!process.isAlive()) {
                  throw new IllegalStateException("prometheus exited: " + server.log());
                }
                return server.ready() && server.query("up{job=\"dcgm\"} == 1").contains("\"1\"]");
              });
    } catch (RuntimeException e) {
      server.close();
      throw e;
    }
    return server;
  }

  public URI url() {
    return URI.create("http://127.0.0.1:" + port);
  }

  /** The raw JSON answer of an instant query. */
  public String query(String promql) throws IOException, InterruptedException {
    HttpRequest request =
        HttpRequest.newBuilder(
                URI.create(
                    url()
                        + "/api/v1/query?query="
                        + URLEncoder.encode(promql, StandardCharsets.UTF_8)))
            .build();
    return http.send(request, HttpResponse.BodyHandlers.ofString()).body();
  }

  private boolean ready() {
    try {
      HttpRequest request = HttpRequest.newBuilder(URI.create(url() + "/-/ready")).build();
      return http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private String log() {
    try {
      return Files.readString(dir.resolve("prometheus.log"));
    } catch (IOException e) {
      return e.toString();
    }
  }

  /**
   * $BERTH_PROMETHEUS, or prometheus on PATH; else scripts/prometheus-binary.sh installs Debian's
   * package (idempotent). No Prometheus is a failure, never a skip.
   */
  static String binary() throws IOException {
    return dev.berth.e2e.InstalledBinary.find(
        "prometheus", "BERTH_PROMETHEUS", "scripts/prometheus-binary.sh", "the DCGM join test");
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      // A temp dir left behind is harmless.
    }
  }
}
