package dev.berth.operator.usage;

import dev.berth.engine.usage.Run;
import dev.berth.engine.usage.UsageRequest;
import dev.berth.engine.usage.UsageTotals;
import dev.berth.operator.metrics.UtilizationMetrics;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.math.BigDecimal;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Off the admission loop's thread, in the order runs ended: waits until Prometheus has the end of a
 * run (the configured delay), measures its GPU use there (the DCGM join, when a URL is configured),
 * adds it to the namespace's monthly UsageReport, and only then hands it back so that the loop
 * records it on the Workload. That order makes both records exactly-once across restarts: a run in
 * the report but not yet on the Workload is offered again by the ledger after a restart, and the
 * report says it already counts it.
 */
public final class UsageRecorder implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(UsageRecorder.class);
  private static final String GPU = ReportTranslator.GPU;
  private static final long MAX_BACKOFF_MS = 30_000;

  /** An ended run, with pod name → podSet of its workload's pods (for the DCGM join). */
  public record Task(Run run, boolean durable, Map<String, String> pods) {}

  /** Where runs are billed: the monthly reports ({@link ReportWriter}). */
  public interface Reports {
    /**
     * @return whether the run was added (false: already counted)
     */
    boolean add(Run run, Map<UsageTotals.Key, BigDecimal> used);
  }

  private final Reports reports;
  private final PrometheusUtilization prometheus;
  private final UtilizationSettings settings;
  private final UtilizationMetrics metrics;
  private final Clock clock;
  private final Runnable recorded;
  private final ScheduledExecutorService worker;

  /** Runs in the order they ended; the head is worked on, a failing head holds the rest. */
  private final Deque<Task> queue = new ArrayDeque<>();

  private final Queue<Run> done = new ConcurrentLinkedQueue<>();
  private long backoff = 1000;

  /**
   * @param recorded called (from the worker) when runs are in their report: the loop should record
   *     them on their Workloads
   */
  public UsageRecorder(
      Reports reports,
      UtilizationSettings settings,
      UtilizationMetrics metrics,
      Clock clock,
      Runnable recorded) {
    this.reports = reports;
    this.settings = settings;
    this.prometheus = settings.enabled() ? new PrometheusUtilization(settings) : null;
    this.metrics = metrics;
    this.clock = clock;
    this.recorded = recorded;
    this.worker =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "berth-usage-recorder");
              t.setDaemon(true);
              return t;
            });
  }

  /** From the loop thread, in the order runs ended. */
  public void submit(Task task) {
    worker.execute(
        () -> {
          queue.addLast(task);
          if (queue.size() == 1) {
            work();
          }
        });
  }

  /** Runs now in their report whose Workload record is still to be written (loop thread). */
  public List<Run> takeRecorded() {
    List<Run> out = new ArrayList<>();
    for (Run r; (r = done.poll()) != null; ) {
      out.add(r);
    }
    return out;
  }

  private void work() {
    while (!queue.isEmpty()) {
      Task task = queue.peekFirst();
      long wait = task.run().end() + settings.delay().toMillis() - clock.millis();
      if (prometheus != null && wait > 0 && measurable(task)) {
        worker.schedule(this::work, wait, TimeUnit.MILLISECONDS);
        return;
      }
      try {
        Map<UsageTotals.Key, BigDecimal> used = measure(task);
        if (reports.add(task.run(), used)) {
          metrics.recorded(task.run(), used);
        }
      } catch (KubernetesClientException e) {
        if (e.getCode() != 400 && e.getCode() != 422) {
          retryLater(task, e);
          return;
        }
        // The report refuses it for good (e.g. a bound of its schema): waiting would hold every
        // later run back; the Workload record and the counters still have it.
        log.error("usage of {} left out of its UsageReport: {}", task.run().name(), e.getMessage());
      } catch (RuntimeException | IOException e) {
        retryLater(task, e);
        return;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      backoff = 1000;
      queue.removeFirst();
      if (task.durable()) {
        done.add(task.run());
        recorded.run();
      }
    }
  }

  private void retryLater(Task task, Exception e) {
    log.warn(
        "usage of {} not recorded yet ({}); retrying in {} ms",
        task.run().name(),
        e.getMessage(),
        backoff);
    worker.schedule(this::work, backoff, TimeUnit.MILLISECONDS);
    backoff = Math.min(MAX_BACKOFF_MS, backoff * 2);
  }

  private static boolean measurable(Task task) {
    return !task.pods().isEmpty()
        && task.run().requests().stream().anyMatch(r -> r.resource().equals(GPU));
  }

  /**
   * Device-seconds used per GPU request of the run whose podSet has pods; empty without Prometheus.
   * A query that keeps failing is given up after the configured time, and the run is recorded
   * unmeasured.
   */
  private Map<UsageTotals.Key, BigDecimal> measure(Task task)
      throws IOException, InterruptedException {
    if (prometheus == null || !measurable(task)) {
      return Map.of();
    }
    Run run = task.run();
    Map<String, BigDecimal> perPod;
    try {
      perPod =
          prometheus.deviceSeconds(
              run.owner().namespace(), task.pods().keySet(), run.start(), run.end());
      metrics.query(true);
    } catch (IOException e) {
      metrics.query(false);
      long deadline = run.end() + settings.delay().toMillis() + settings.giveUpAfter().toMillis();
      if (clock.millis() < deadline) {
        throw e;
      }
      log.warn(
          "usage of {} recorded without GPU utilization: Prometheus failed until {}: {}",
          run.name(),
          java.time.Instant.ofEpochMilli(deadline),
          e.getMessage());
      return Map.of();
    }
    // A podSet none of whose pods has a series is not measured (no exporter on its nodes, or no
    // pod mapping): reading it as idle would bill it as unused.
    Map<String, BigDecimal> perPodSet = new HashMap<>();
    task.pods()
        .forEach(
            (pod, podSet) -> {
              if (perPod.containsKey(pod)) {
                perPodSet.merge(podSet, perPod.get(pod), BigDecimal::add);
              }
            });
    Map<UsageTotals.Key, BigDecimal> used = new HashMap<>();
    for (UsageRequest r : run.requests()) {
      BigDecimal u = perPodSet.get(r.podSet());
      if (r.resource().equals(GPU) && u != null) {
        used.put(new UsageTotals.Key(r.podSet(), r.flavor(), r.resource()), u);
      }
    }
    return used;
  }

  @Override
  public void close() {
    worker.shutdownNow();
  }
}
