package dev.berth.operator.usage;

import dev.berth.engine.usage.Run;
import dev.berth.engine.usage.UsageRequest;
import dev.berth.engine.usage.UsageTotals;
import dev.berth.operator.kube.ApiErrors;
import dev.berth.operator.metrics.UtilizationMetrics;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
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
 *
 * <p>The runs that are ready for the same report when the worker gets to them go in one write (at
 * most {@link #MAX_BATCH}): one run per GET and PUT could not keep up with a cluster finishing 60
 * workloads a second, and a report behind by thousands of runs is a bill that is late. Runs keep
 * arriving while a write is on the wire, so the busier the cluster, the larger the batches.
 *
 * <p>A report is written again only {@code usage.reportInterval} (10 s) after this recorder's last
 * write of it, unless a full batch is waiting for it: each write carries the whole month's report
 * (up to {@link ReportWriter#PRUNE_AT} runs), so a write for every few runs was most of what the
 * bill cost the operator and the API server (2,000 report writes for 15,000 runs on the baseline
 * benchmark, docs/benchmarks.md). Reports whose interval has passed go first, in the order their
 * runs ended; a monthly bill a few seconds later is not a later bill.
 */
public final class UsageRecorder implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(UsageRecorder.class);
  private static final String GPU = ReportTranslator.GPU;
  private static final long MAX_BACKOFF_MS = 30_000;

  /**
   * Runs in one report write at most. Half of {@link ReportWriter#PRUNE_BATCH}, so that a report
   * past its prune threshold still shrinks with every write.
   */
  static final int MAX_BATCH = ReportWriter.PRUNE_BATCH / 2;

  /**
   * An ended run, with pod name → podSet of its workload's pods (for the DCGM join), and the report
   * it is billed to (namespace/month).
   */
  public record Task(Run run, boolean durable, Map<String, String> pods, String report) {
    public Task(Run run, boolean durable, Map<String, String> pods) {
      this(run, durable, pods, run.owner().namespace() + "/" + ReportTranslator.monthOf(run.end()));
    }
  }

  /** An ended run with the device-seconds measured for its GPU requests (empty: unmeasured). */
  public record Measured(Run run, Map<UsageTotals.Key, BigDecimal> used) {}

  /** Where runs are billed: the monthly reports ({@link ReportWriter}). */
  public interface Reports {
    /**
     * Adds runs that all belong to one report: the same namespace, ended in the same month.
     *
     * @return the uids of the runs added now (the others it already counted)
     */
    Set<String> add(List<Measured> runs);
  }

  private final Reports reports;
  private final PrometheusUtilization prometheus;
  private final UtilizationSettings settings;
  private final UtilizationMetrics metrics;
  private final Clock clock;
  private final Runnable recorded;
  private final long intervalMs;
  private final ScheduledExecutorService worker;

  /**
   * Report (namespace/month) → clock millis of this recorder's last write of it, while its interval
   * runs. Worker only.
   */
  private final Map<String, Long> lastWrite = new HashMap<>();

  /** Report → its runs in {@link #queue}. Worker only. */
  private final Map<String, Integer> queued = new HashMap<>();

  /** Submitted by the loop, not yet moved to {@link #queue} by the worker. */
  private final Queue<Task> incoming = new ConcurrentLinkedQueue<>();

  /**
   * Worker thread only. Runs in the order they ended; the head's batch is worked on, and a failing
   * head holds the rest. Not empty means the worker is working or has a retry scheduled.
   */
  private final Deque<Task> queue = new ArrayDeque<>();

  private final Queue<Run> done = new ConcurrentLinkedQueue<>();
  private long backoff = 1000;

  /** The scheduled call of {@link #work}, if any. Worker only. */
  private ScheduledFuture<?> wake;

  /**
   * True while the worker waits only for a report's interval or for Prometheus's delay, not for a
   * retry. Worker only.
   */
  private boolean pacing;

  /** Batches still to be sent one run each, after a report refused a batch for good. */
  private int singly;

  /**
   * @param interval the least time between two writes of one report while no full batch waits
   * @param recorded called (from the worker) when runs are in their report: the loop should record
   *     them on their Workloads
   */
  public UsageRecorder(
      Reports reports,
      UtilizationSettings settings,
      UtilizationMetrics metrics,
      Clock clock,
      Duration interval,
      Runnable recorded) {
    this.reports = reports;
    this.intervalMs = interval.toMillis();
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
    incoming.add(task);
    worker.execute(
        () -> {
          // While only waiting for an interval, a new run may make a report due (one not written
          // lately, or a batch now full); while a write is retried after a failure, it waits.
          boolean idle = queue.isEmpty() || pacing;
          moveIncoming();
          if (idle && !queue.isEmpty()) {
            work();
          }
        });
  }

  private void moveIncoming() {
    for (Task t; (t = incoming.poll()) != null; ) {
      queue.addLast(t);
      queued.merge(t.report(), 1, Integer::sum);
    }
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
    pacing = false;
    while (true) {
      // The time first: a run submitted before the clock reached a report's due time is then
      // in the queue when that report is written.
      long now = clock.millis();
      moveIncoming();
      if (queue.isEmpty()) {
        return;
      }
      Task head = next(now);
      if (head == null) {
        pacing = true;
        wakeIn(untilNext(now));
        return;
      }
      List<Task> batch = batch(head, singly > 0 ? 1 : MAX_BATCH);
      List<Measured> measured = new ArrayList<>(batch.size());
      try {
        for (Task task : batch) {
          measured.add(new Measured(task.run(), measure(task)));
        }
      } catch (IOException | RuntimeException e) {
        if (measured.isEmpty()) {
          retryLater(head, e);
          return;
        }
        // The rest waits for Prometheus in a later batch; these are measured. (A throw that
        // left this loop would leave the queue full and nothing scheduled: the bill stuck.)
        batch = batch.subList(0, measured.size());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      try {
        Set<String> added = reports.add(measured);
        for (Measured m : measured) {
          if (added.contains(m.run().uid())) {
            metrics.recorded(m.run(), m.used());
          }
        }
      } catch (KubernetesClientException e) {
        if (!ApiErrors.invalid(e)) {
          retryLater(head, e);
          return;
        }
        if (batch.size() > 1) {
          // One of them is refused for good: each alone, so that only that one is left out.
          singly = batch.size();
          continue;
        }
        // The report refuses it for good (e.g. a bound of its schema): waiting would hold every
        // later run back; the Workload record and the counters still have it.
        log.error("usage of {} left out of its UsageReport: {}", head.run().name(), e.getMessage());
      } catch (RuntimeException e) {
        retryLater(head, e);
        return;
      }
      backoff = 1000;
      if (singly > 0) {
        singly--; // a run of a refused batch: the report's interval is for the batches after it
      } else {
        lastWrite.put(head.report(), now);
      }
      finish(batch);
    }
  }

  /**
   * The first task, in the order runs ended, that can be measured now and whose report is due: its
   * interval has passed, or a full batch of measurable runs waits for it. Null if there is none.
   */
  private Task next(long now) {
    forgetPast(now);
    // Looked at on every run that arrives while the worker paces: without a due report (the
    // common case under load), no walk of the queue.
    boolean anyDue = false;
    for (Map.Entry<String, Integer> e : queued.entrySet()) {
      if (!lastWrite.containsKey(e.getKey()) || e.getValue() >= MAX_BATCH) {
        anyDue = true;
        break;
      }
    }
    if (!anyDue) {
      return null;
    }
    Map<String, Integer> waiting = new HashMap<>();
    for (Task t : queue) {
      if (waitFor(t) > 0) {
        continue;
      }
      String report = t.report();
      if (dueIn(report, now) <= 0) {
        return t;
      }
      if (waiting.merge(report, 1, Integer::sum) >= MAX_BATCH) {
        for (Task first : queue) {
          if (waitFor(first) == 0 && first.report().equals(report)) {
            return first;
          }
        }
      }
    }
    return null;
  }

  /** The worker's one scheduled wake: a later one replaces it. */
  private void wakeIn(long ms) {
    if (wake != null) {
      wake.cancel(false);
    }
    wake = worker.schedule(this::work, ms, TimeUnit.MILLISECONDS);
  }

  /** Milliseconds until some task is measurable and its report due (queue not empty). */
  private long untilNext(long now) {
    long soonest = MAX_BACKOFF_MS;
    if (prometheus == null) {
      for (String report : queued.keySet()) { // no run waits for Prometheus
        soonest = Math.min(soonest, dueIn(report, now));
      }
    } else {
      for (Task t : queue) {
        soonest = Math.min(soonest, Math.max(waitFor(t), dueIn(t.report(), now)));
      }
    }
    return Math.max(1, soonest);
  }

  private long dueIn(String report, long now) {
    Long last = lastWrite.get(report);
    return last == null ? 0 : last + intervalMs - now;
  }

  /** Drops the reports whose interval has passed: they are due as if never written. */
  private void forgetPast(long now) {
    lastWrite.values().removeIf(last -> last + intervalMs <= now);
  }

  /** Milliseconds until the task can be measured (the Prometheus delay), 0 if it can be now. */
  private long waitFor(Task task) {
    if (prometheus == null || !measurable(task)) {
      return 0;
    }
    return Math.max(0, task.run().end() + settings.delay().toMillis() - clock.millis());
  }

  /** The head and the tasks after it that are ready for the same report, in queue order. */
  private List<Task> batch(Task head, int max) {
    String report = head.report();
    List<Task> batch = new ArrayList<>();
    for (Task t : queue) {
      if (batch.size() == max) {
        break;
      }
      if (t == head || (t.report().equals(report) && waitFor(t) == 0)) {
        batch.add(t);
      }
    }
    return batch;
  }

  /** Takes the batch out of the queue and hands its durable runs back for their Workload record. */
  private void finish(List<Task> batch) {
    Set<Task> sent = Collections.newSetFromMap(new IdentityHashMap<>());
    sent.addAll(batch);
    queue.removeIf(sent::contains);
    for (Task task : batch) {
      queued.computeIfPresent(task.report(), (report, n) -> n == 1 ? null : n - 1);
    }
    boolean any = false;
    for (Task task : batch) {
      if (task.durable()) {
        done.add(task.run());
        any = true;
      }
    }
    if (any) {
      recorded.run();
    }
  }

  private void retryLater(Task task, Exception e) {
    log.warn(
        "usage of {} not recorded yet ({}); retrying in {} ms",
        task.run().name(),
        e.getMessage(),
        backoff);
    wakeIn(backoff);
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
