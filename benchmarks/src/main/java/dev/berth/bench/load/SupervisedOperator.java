package dev.berth.bench.load;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The operator JVM, started again whenever it exits, as its Deployment's kubelet would: a replica
 * that loses its Lease (on a loaded machine an API server that does not answer the renewal within
 * its deadline) stops admitting and exits, and its successor rebuilds the state from the API
 * server. CPU seconds add up over every JVM it started, peak RSS is the highest of them; both are
 * sampled every second, so a JVM's last second before it exits is missed.
 */
final class SupervisedOperator implements AutoCloseable, OperatorMetrics {
  private final ScheduledExecutorService timer = DaemonTimer.named("operator-supervisor");
  private final Path jar;
  private final Path kubeconfig;
  private final Path dir;
  private final String jvm;
  private final Map<String, String> env;
  // Written only by the supervisor thread (and start); read by others without waiting on a restart.
  private volatile OperatorJvm current;
  private volatile double cpuOfExited;
  private volatile double lastCpu;
  private volatile double peakRss;
  private volatile int restarts;
  private volatile boolean closed;

  private SupervisedOperator(
      Path jar, Path kubeconfig, Path dir, String jvm, Map<String, String> env) {
    this.jar = jar;
    this.kubeconfig = kubeconfig;
    this.dir = dir;
    this.jvm = jvm;
    this.env = Map.copyOf(env);
  }

  /**
   * Starts the operator with {@code env} (its BERTH_* settings, e.g. the chart's webhooks: {@link
   * ChartWebhooks#register}) and waits until it is ready; then watches it every second.
   */
  static SupervisedOperator start(
      Path jar, Path kubeconfig, Path dir, String jvm, Map<String, String> env) throws Exception {
    SupervisedOperator s =
        new SupervisedOperator(jar, kubeconfig, dir.resolve("operator-0"), jvm, env);
    Files.createDirectories(s.dir);
    s.current = SchedulerLoadBenchmark.startReady(jar, kubeconfig, s.dir, jvm, s.env);
    s.check();
    s.timer.scheduleWithFixedDelay(s::check, 1, 1, TimeUnit.SECONDS);
    return s;
  }

  private void check() {
    if (closed) {
      return;
    }
    if (current.alive()) {
      try {
        lastCpu = current.cpuSeconds();
        peakRss = Math.max(peakRss, current.peakRssMiB());
      } catch (IOException e) {
        // It exited between the two reads; the next check starts another.
      }
      return;
    }
    cpuOfExited += lastCpu;
    lastCpu = 0;
    restarts++;
    System.out.printf(
        "[scale] the operator exited (log in %s); starting it again (restart %d)%n", dir, restarts);
    current.close();
    try {
      Path next = dir.resolveSibling("operator-" + restarts);
      Files.createDirectories(next);
      current = SchedulerLoadBenchmark.startReady(jar, kubeconfig, next, jvm, env);
    } catch (Exception e) {
      System.out.println("[scale] could not start the operator again: " + e);
    }
  }

  /** CPU seconds of every operator JVM so far. */
  double cpuSeconds() {
    return cpuOfExited + lastCpu;
  }

  /** The running JVM's metric (-1 while it is being restarted). */
  @Override
  public double metric(String name) {
    return current.metric(name);
  }

  double peakRssMiB() {
    return peakRss;
  }

  int restarts() {
    return restarts;
  }

  @Override
  public void close() {
    closed = true;
    timer.shutdownNow();
    try {
      timer.awaitTermination(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    current.close();
  }
}
