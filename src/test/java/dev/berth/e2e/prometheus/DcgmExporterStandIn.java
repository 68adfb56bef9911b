package dev.berth.e2e.prometheus;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A STAND-IN for NVIDIA's dcgm-exporter, because no GPU is here: it serves the exporter's
 * Prometheus exposition (`DCGM_FI_DEV_GPU_UTIL`, a gauge in percent, and `DCGM_FI_PROF_SM_ACTIVE`,
 * a ratio) with the labels dcgm-exporter publishes when its Kubernetes pod mapping is on: {@code
 * gpu, UUID, device, modelName, Hostname, container, namespace, pod}. The test says which pod's
 * GPUs are how busy, and when.
 */
public final class DcgmExporterStandIn implements AutoCloseable {
  /** One GPU of a pod, busy {@code percent}. */
  public record Gpu(int index, double percent) {}

  private record PodKey(String namespace, String pod) {}

  private final HttpServer server;
  private final Map<PodKey, List<Gpu>> running = new ConcurrentHashMap<>();
  private final String hostname;

  public DcgmExporterStandIn(String hostname) throws IOException {
    this.hostname = hostname;
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/metrics",
        exchange -> {
          byte[] body = exposition().getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4");
          exchange.sendResponseHeaders(200, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    server.start();
  }

  /** host:port to scrape. */
  public String target() {
    return "127.0.0.1:" + server.getAddress().getPort();
  }

  /** The pod runs on these GPUs from now on (its series appear at the next scrape). */
  public void run(String namespace, String pod, List<Gpu> gpus) {
    running.put(new PodKey(namespace, pod), List.copyOf(gpus));
  }

  /** The pod ended: its series are gone from the next scrape on, as the exporter drops them. */
  public void stop(String namespace, String pod) {
    running.remove(new PodKey(namespace, pod));
  }

  String exposition() {
    StringBuilder util =
        new StringBuilder(
            "# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).\n"
                + "# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n");
    StringBuilder sm =
        new StringBuilder(
            "# HELP DCGM_FI_PROF_SM_ACTIVE The ratio of cycles an SM has at least 1 warp assigned.\n"
                + "# TYPE DCGM_FI_PROF_SM_ACTIVE gauge\n");
    running.forEach(
        (key, gpus) -> {
          for (Gpu gpu : gpus) {
            String labels =
                "{gpu=\""
                    + gpu.index()
                    + "\",UUID=\"GPU-5fd4c7a1-0000-4000-8000-00000000000"
                    + gpu.index()
                    + "\",device=\"nvidia"
                    + gpu.index()
                    + "\",modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\""
                    + hostname
                    + "\",DCGM_FI_DRIVER_VERSION=\"550.54.15\",container=\"trainer\",namespace=\""
                    + key.namespace()
                    + "\",pod=\""
                    + key.pod()
                    + "\"}";
            util.append("DCGM_FI_DEV_GPU_UTIL")
                .append(labels)
                .append(' ')
                .append(gpu.percent())
                .append('\n');
            sm.append("DCGM_FI_PROF_SM_ACTIVE")
                .append(labels)
                .append(' ')
                .append(gpu.percent() / 100)
                .append('\n');
          }
        });
    return util.append(sm).toString();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
