package dev.berth.bench.load;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The operator under test in a JVM of its own ({@code java -jar
 * operator/target/berth-operator.jar}, the jar the image runs) with the chart's environment, so
 * that its CPU time and peak RSS are its own and not the benchmark's. Reads both from /proc. Its
 * webhooks are off unless the caller's environment turns them on ({@link ChartWebhooks#register}
 * gives the chart's).
 */
final class OperatorJvm implements AutoCloseable, OperatorMetrics {
  /** Linux reports utime and stime in clock ticks; USER_HZ is 100 on every mainstream kernel. */
  private static final double TICKS_PER_SECOND = 100.0;

  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  /**
   * The chart's default jvmOptions (helm/berth/values.yaml, repeated here: ChartMemoryBudgetIT
   * checks the image's against the chart's, not these) in a JVM that sees the chart's 1 GiB memory
   * limit, as in its container.
   */
  static final String CHART_DEFAULTS =
      "-XX:MaxRAM=1073741824 -XX:+UseSerialGC -XX:MaxRAMPercentage=50"
          + " -XX:+ExitOnOutOfMemoryError -XX:MinHeapFreeRatio=20 -XX:TrimNativeHeapInterval=5000"
          + " -Dio.netty.allocator.numDirectArenas=1 -Dio.netty.allocator.numHeapArenas=1";

  private final Process process;
  private final int metricsPort;
  private final Path log;

  private OperatorJvm(Process process, int metricsPort, Path log) {
    this.process = process;
    this.metricsPort = metricsPort;
    this.log = log;
  }

  /**
   * Starts it against {@code kubeconfig}.
   *
   * @param jvmOptions e.g. {@link #CHART_DEFAULTS}
   * @param env extra environment (the operator's BERTH_* settings), over the defaults here
   */
  static OperatorJvm start(
      Path jar, Path kubeconfig, Path log, String jvmOptions, Map<String, String> env)
      throws IOException {
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(
          jar
              + " is missing: build with"
              + " ./mvnw -Pbench -DskipTests package -pl benchmarks -am (it packages the operator)");
    }
    int port = freePort();
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    for (String option : jvmOptions.trim().split("\\s+")) {
      if (!option.isEmpty()) {
        command.add(option);
      }
    }
    command.add("-jar");
    command.add(jar.toString());
    ProcessBuilder builder =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
    Map<String, String> environment = builder.environment();
    environment.remove("KUBERNETES_SERVICE_HOST");
    environment.remove("JAVA_TOOL_OPTIONS");
    environment.put("KUBECONFIG", kubeconfig.toString());
    environment.put("HOSTNAME", "berth-bench-0");
    environment.put("BERTH_NAMESPACE", "berth-system");
    environment.put("BERTH_WEBHOOKS_ENABLED", "false");
    environment.put("BERTH_METRICS_PORT", Integer.toString(port));
    // As the chart's Deployment sets it (docs/helm.md#memory).
    environment.put("MALLOC_ARENA_MAX", "2");
    environment.putAll(env);
    return new OperatorJvm(builder.start(), port, log);
  }

  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  boolean alive() {
    return process.isAlive();
  }

  /** /readyz answers 200: started, leading, and the state rebuilt. */
  boolean ready() {
    return status("/readyz") == 200;
  }

  private int status(String path) {
    try {
      return HTTP.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metricsPort + path))
                  .timeout(Duration.ofSeconds(3))
                  .build(),
              HttpResponse.BodyHandlers.discarding())
          .statusCode();
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  /**
   * The sum of a counter (or a timer's {@code _count}) over its series on the operator's /metrics,
   * or -1 if it cannot be read.
   */
  @Override
  public double metric(String name) {
    try {
      String body =
          HTTP.send(
                  HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metricsPort + "/metrics"))
                      .timeout(Duration.ofSeconds(10))
                      .build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      double sum = 0;
      boolean found = false;
      for (String line : body.split("\n")) {
        if (line.startsWith(name + " ") || line.startsWith(name + "{")) {
          sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
          found = true;
        }
      }
      return found ? sum : -1;
    } catch (IOException | RuntimeException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  /** User + system CPU seconds the process has used so far. */
  double cpuSeconds() throws IOException {
    String stat = Files.readString(Path.of("/proc", Long.toString(process.pid()), "stat"));
    // Fields after the command name (which is in parentheses and may hold spaces).
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    // utime and stime are fields 14 and 15 of the whole line, 12 and 13 after the name.
    return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / TICKS_PER_SECOND;
  }

  /** Peak resident set size (VmHWM) in MiB. */
  double peakRssMiB() throws IOException {
    for (String line :
        Files.readAllLines(Path.of("/proc", Long.toString(process.pid()), "status"))) {
      if (line.startsWith("VmHWM:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024.0;
      }
    }
    throw new IOException("no VmHWM in /proc/" + process.pid() + "/status");
  }

  Path log() {
    return log;
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}
