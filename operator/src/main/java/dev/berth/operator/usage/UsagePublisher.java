package dev.berth.operator.usage;

import dev.berth.api.v1beta1.Workload;
import dev.berth.engine.usage.Run;
import dev.berth.engine.usage.UsageLedger;
import dev.berth.engine.usage.UsageTotals;
import dev.berth.operator.admission.AdmissionLoop;
import dev.berth.operator.admission.ClusterState;
import dev.berth.operator.admission.ClusterView;
import dev.berth.operator.admission.WritePool;
import dev.berth.operator.kube.ApiErrors;
import dev.berth.operator.kube.Copies;
import dev.berth.operator.kube.StatusWrite;
import dev.berth.operator.metrics.UsageMetrics;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * After each cycle, on the loop thread: feeds the usage ledger's events to the counters, hands each
 * ended run to the {@link UsageRecorder} (DCGM join and monthly UsageReport), and once it is in its
 * report adds it to its Workload's status.usage. A record that already counts the run (same
 * reservation time) is left alone, so a restart or a retry never bills twice; a write the API
 * server refuses is retried after a later cycle, a second or more after it failed. The Workload
 * writes are sent by the loop's {@link WritePool}, never on the loop thread.
 *
 * <p>The Workload records give way to admissions: one is sent only when a writer is idle, and
 * {@link #FLOOR_PER_SECOND} a second whatever the pool is doing, so that they always advance. On a
 * cluster whose API server is the bound (every writer waiting on it), a record per finished
 * workload would otherwise take the place of an admission; the bill does not wait for them (the
 * monthly report is written first), and a record not yet written when the operator stops is written
 * after the restart (the ledger offers the run again, the report says it counts it).
 */
public final class UsagePublisher implements Consumer<AdmissionLoop.CycleOutcome> {
  private static final Logger log = LoggerFactory.getLogger(UsagePublisher.class);

  private final KubernetesClient client;
  private final StatusWrite statusWrite;
  private final ClusterView state;
  private final UsageObserver usage;
  private final UsageMetrics metrics;
  private final UsageRecorder recorder;
  private static final long RETRY_AFTER_NANOS = 1_000_000_000L;

  /** Workload records sent per second even while every writer is busy. */
  static final int FLOOR_PER_SECOND = 5;

  /** In their report, their Workload record still to be sent; oldest first. */
  private final Deque<Run> unrecorded = new ArrayDeque<>();

  private final RecordPace pace = new RecordPace(FLOOR_PER_SECOND, System.nanoTime());

  /** Runs whose write failed, with System.nanoTime() of the failure. */
  private final Map<Run, Long> failed = new LinkedHashMap<>();

  private final WritePool pool;

  /**
   * @param usage the ledger's events and the workloads' pods, as the loop observed them
   */
  public UsagePublisher(
      KubernetesClient client,
      ClusterView state,
      UsageObserver usage,
      UsageMetrics metrics,
      UsageRecorder recorder,
      WritePool pool,
      StatusWrite statusWrite) {
    this.pool = pool;
    this.statusWrite = statusWrite;
    this.client = client;
    this.state = state;
    this.usage = usage;
    this.metrics = metrics;
    this.recorder = recorder;
  }

  @Override
  public void accept(AdmissionLoop.CycleOutcome outcome) {
    for (UsageLedger.Event event : usage.takeEvents()) {
      metrics.apply(event);
      if (event instanceof UsageLedger.Ended ended) {
        Map<String, String> pods =
            state.latestWorkload(ended.run().uid()).map(usage::podsOf).orElse(Map.of());
        recorder.submit(new UsageRecorder.Task(ended.run(), ended.durable(), pods));
      }
    }
    unrecorded.addAll(recorder.takeRecorded());
    long now = System.nanoTime();
    failed
        .entrySet()
        .removeIf(
            e -> {
              if (now - e.getValue() < RETRY_AFTER_NANOS) {
                return false;
              }
              unrecorded.add(e.getKey());
              return true;
            });
    int allowed = unrecorded.isEmpty() ? 0 : pace.allowed(pool.idleWriters(), now);
    // At most one look at each waiting run per cycle: a busy one goes to the back.
    for (int looked = unrecorded.size(); allowed > 0 && looked > 0; looked--) {
      Run run = unrecorded.pollFirst();
      if (pool.busy(run.uid())) {
        unrecorded.addLast(run); // after the write on the wire for it
        continue;
      }
      boolean queued =
          pool.submit(
              run.uid(),
              () -> {
                Workload known = state.latestWorkload(run.uid()).orElse(null);
                if (known == null || totals(known).counts(run)) {
                  return null;
                }
                return () -> record(run, known);
              });
      if (!queued) {
        failed.put(run, now);
      }
      allowed--;
    }
  }

  private static UsageTotals totals(Workload known) {
    return UsageTranslator.totals(known.getStatus() == null ? null : known.getStatus().usage);
  }

  /** Writer thread: adds the run to the Workload's record; what follows, for the loop thread. */
  private Consumer<ClusterState> record(Run run, Workload stored) {
    Workload known = stored;
    for (int attempt = 0; attempt < 2 && known != null; attempt++) {
      UsageTotals totals = totals(known);
      if (totals.counts(run)) {
        return s -> {};
      }
      Workload copy = Copies.forStatus(known);
      copy.getStatus().usage = UsageTranslator.toApi(totals.plus(run));
      try {
        Workload written = statusWrite.replace(copy);
        return s -> s.workloadWritten(written);
      } catch (KubernetesClientException e) {
        if (ApiErrors.gone(e)) {
          return s -> {};
        }
        if (!ApiErrors.conflict(e)) {
          log.debug("usage of {} not recorded ({}); retried", run.name(), e.getCode());
          break;
        }
        known = client.resource(copy).get();
      }
    }
    if (known == null) {
      return s -> {};
    }
    long at = System.nanoTime();
    return s -> failed.put(run, at);
  }
}
