package dev.berth.bench.load;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Locale;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A line every few seconds while a scale run goes: Jobs created, admitted, Running and Complete,
 * the API server's requests per second since the last line (heartbeats left out, from its own
 * counts), the operator's CPU use and the load average. What bounds a run shows here: admissions
 * that trail while the API server or the operator is busy, or while both idle.
 */
final class Progress implements AutoCloseable {
  private final ScheduledExecutorService timer = DaemonTimer.named("scale-progress");
  private final KubernetesClient admin;
  private final ScaleRunner runner;
  private final SupervisedOperator operator;
  private ApiRequests lastRequests;
  private double lastCpu;
  private long lastAt = System.nanoTime();

  private Progress(
      KubernetesClient admin, ScaleRunner runner, SupervisedOperator operator, ApiRequests start) {
    this.admin = admin;
    this.runner = runner;
    this.operator = operator;
    this.lastRequests = start;
    this.lastCpu = operator == null ? 0 : operator.cpuSeconds();
  }

  /** Starts printing; {@code operator} is null for the floor. */
  static Progress every(
      int seconds,
      KubernetesClient admin,
      ScaleRunner runner,
      SupervisedOperator operator,
      ApiRequests start) {
    Progress p = new Progress(admin, runner, operator, start);
    p.timer.scheduleAtFixedRate(p::print, seconds, seconds, TimeUnit.SECONDS);
    return p;
  }

  private void print() {
    try {
      long now = System.nanoTime();
      double interval = (now - lastAt) / 1e9;
      ApiRequests requests = ApiRequests.scrape(admin);
      long work = ApiRequests.withoutHeartbeats(requests.since(lastRequests));
      String cpu = "";
      if (operator != null) {
        double c = operator.cpuSeconds();
        cpu = String.format(Locale.ROOT, ", operator CPU %.2f cores", (c - lastCpu) / interval);
        lastCpu = c;
      }
      System.out.printf(
          Locale.ROOT,
          "[scale] %6.0f s: created %d, admitted %d, Running %d, Complete %d; API %.0f req/s%s;"
              + " load %s%n",
          runner.elapsedSeconds(),
          runner.created(),
          runner.admissions(),
          runner.running(),
          runner.complete(),
          work / interval,
          cpu,
          LoadAverage.now());
      lastRequests = requests;
      lastAt = now;
    } catch (RuntimeException e) {
      System.out.println("[scale] progress: " + e);
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
