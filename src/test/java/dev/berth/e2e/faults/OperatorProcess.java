package dev.berth.e2e.faults;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One operator replica in a JVM of its own: {@code java -jar operator/target/berth-operator.jar}
 * (the shaded jar the build makes, the one the image runs) with the environment of the chart's
 * Deployment at its defaults ({@link ChartOperatorPod}: JAVA_TOOL_OPTIONS, webhooks on with a
 * self-signed CA in a Secret and the caBundle patched by the operator, leader election, exit on a
 * lost Lease, the writers' settings) and its memory limit as the JVM's (-XX:MaxRAM). What differs
 * is what one machine instead of a Pod each forces: the ports are free ones (0), the webhook
 * Service's name is {@code localhost}, where the API server reaches the replicas through a {@link
 * WebhookRelay} (the serving certificate names it), and the operator identity is the user the fault
 * proxy authenticates as. Each start is a new Pod: a new identity (HOSTNAME, which names the Lease
 * holder) and a new log. It can be killed with SIGKILL; one that exits by itself is started again,
 * as the kubelet would.
 */
final class OperatorProcess implements AutoCloseable {
  private static final Pattern METRICS = Pattern.compile("metrics on :(\\d+)");
  private static final Pattern WEBHOOKS = Pattern.compile("webhooks served on :(\\d+)");
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private final String name;
  private final Path kubeconfig;
  private final Path logDir;
  private final ChartOperatorPod pod;
  private final String operatorUser;
  private Process process;
  private Path log;
  private int generation;
  private int exitsOnItsOwn;

  /** Killed on purpose and not started again yet: not to be restarted behind the test's back. */
  private boolean killed;

  /**
   * @param operatorUser the user its client authenticates as (the chart's ServiceAccount): the only
   *     one the webhooks let start a managed Job or write a Workload's admission
   */
  OperatorProcess(
      String name, Path kubeconfig, Path logDir, ChartOperatorPod pod, String operatorUser) {
    this.name = name;
    this.pod = pod;
    this.operatorUser = operatorUser;
    this.kubeconfig = kubeconfig;
    this.logDir = logDir;
    // If the test JVM dies first, its replicas go with it, not on as orphans.
    Runtime.getRuntime().addShutdownHook(new Thread(this::close, name + "-stop"));
  }

  static Path jar() {
    String repo = System.getProperty("berth.repo");
    if (repo == null || repo.isBlank()) {
      throw new IllegalStateException("system property berth.repo is not set; run through Maven");
    }
    Path jar = Path.of(repo, "operator", "target", "berth-operator.jar");
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(
          jar
              + " is missing: build with -am so that the operator"
              + " module's package phase makes its shaded jar");
    }
    return jar;
  }

  synchronized void start() throws IOException {
    killed = false;
    generation++;
    log = logDir.resolve(identity() + ".log");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ProcessBuilder builder =
        new ProcessBuilder(
                List.of(
                    java,
                    // The container's memory limit, which the chart's MaxRAMPercentage takes a
                    // share of; on this machine the JVM would otherwise see all of its memory.
                    "-XX:MaxRAM=" + pod.memoryLimitBytes(),
                    "-jar",
                    jar().toString()))
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    Map<String, String> env = builder.environment();
    env.remove("KUBERNETES_SERVICE_HOST");
    env.remove("JAVA_TOOL_OPTIONS");
    env.putAll(pod.env());
    env.put("KUBECONFIG", kubeconfig.toString());
    env.put("HOSTNAME", identity());
    // Pods have a network each; replicas on one machine take free ports and say which.
    env.put("BERTH_METRICS_PORT", "0");
    env.put("BERTH_WEBHOOK_PORT", "0");
    env.put("BERTH_HTTPS_PORT", "0");
    // The name the API server reaches the webhooks by (the relay here, the Service in a cluster):
    // the serving certificate is issued for it.
    env.put("BERTH_WEBHOOK_SERVICE", "localhost");
    env.put("BERTH_OPERATOR_IDENTITY", operatorUser);
    process = builder.start();
  }

  /** The Lease holder identity of the current process, as a Pod name would be. */
  synchronized String identity() {
    return name + "-" + generation;
  }

  synchronized boolean alive() {
    return process != null && process.isAlive();
  }

  /** kill -9: no shutdown hook, no Lease release, writes in flight cut off. */
  synchronized void kill() throws InterruptedException {
    killed = true;
    process.destroyForcibly();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException(identity() + " survived SIGKILL for 30 s");
    }
  }

  /** Starts it again if it exited by itself (a lost Lease, a failed start); true if it did. */
  synchronized boolean restartIfExited() throws IOException {
    if (process == null || killed || process.isAlive()) {
      return false;
    }
    exitsOnItsOwn++;
    System.out.printf(
        "[berth-faults] %s exited with %d by itself; restarting. Log %s%n",
        identity(), process.exitValue(), tail());
    start();
    return true;
  }

  synchronized int exitsOnItsOwn() {
    return exitsOnItsOwn;
  }

  private OptionalInt metricsPort() {
    return logged(METRICS);
  }

  /** The port its webhooks are served on, once it says so; empty while starting or gone. */
  synchronized OptionalInt webhookPort() {
    return alive() ? logged(WEBHOOKS) : OptionalInt.empty();
  }

  private OptionalInt logged(Pattern port) {
    try {
      Matcher m = port.matcher(Files.readString(log, StandardCharsets.UTF_8));
      return m.find() ? OptionalInt.of(Integer.parseInt(m.group(1))) : OptionalInt.empty();
    } catch (IOException e) {
      return OptionalInt.empty();
    }
  }

  /** Its /readyz answers 200: started, and if it leads, its loop has rebuilt the state. */
  boolean ready() {
    return get("/readyz").map(r -> r.statusCode() == 200).orElse(false);
  }

  /**
   * How many admission cycles its loop has run (berth_admission_cycle_duration_seconds_count): none
   * on a standby, which never decides.
   */
  long admissionCycles() {
    return get("/metrics")
        .filter(r -> r.statusCode() == 200)
        .map(
            r ->
                r.body()
                    .lines()
                    .filter(l -> l.startsWith("berth_admission_cycle_duration_seconds_count"))
                    .mapToLong(l -> (long) Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                    .sum())
        .orElse(0L);
  }

  private Optional<HttpResponse<String>> get(String path) {
    OptionalInt port;
    synchronized (this) {
      if (!alive()) {
        return Optional.empty();
      }
      port = metricsPort();
    }
    if (port.isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.of(
          HTTP.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port.getAsInt() + path))
                  .timeout(Duration.ofSeconds(3))
                  .build(),
              HttpResponse.BodyHandlers.ofString()));
    } catch (IOException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  /**
   * For a stalled run: its metrics and a thread dump (jcmd) beside its log, so that what the leader
   * was doing (idle, or stuck in a cycle) can be read afterwards.
   */
  void dump() {
    Path metrics = logDir.resolve(identity() + "-metrics.txt");
    Path threads = logDir.resolve(identity() + "-threads.txt");
    try {
      Files.writeString(metrics, get("/metrics").map(HttpResponse::body).orElse("(no answer)"));
      long pid;
      synchronized (this) {
        if (!alive()) {
          return;
        }
        pid = process.pid();
      }
      String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
      Process dump =
          new ProcessBuilder(jcmd, Long.toString(pid), "Thread.print")
              .redirectErrorStream(true)
              .redirectOutput(threads.toFile())
              .start();
      if (!dump.waitFor(30, TimeUnit.SECONDS)) {
        dump.destroyForcibly();
      }
    } catch (IOException e) {
      System.out.printf("[berth-faults] no dump of %s: %s%n", identity(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  synchronized String tail() {
    return identity() + " (" + log + "):\n" + ChildProcesses.tail(log, 30);
  }

  @Override
  public synchronized void close() {
    ChildProcesses.stop(process, Duration.ofSeconds(20));
  }
}
