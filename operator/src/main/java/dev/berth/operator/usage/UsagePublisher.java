package dev.berth.operator.usage;

import dev.berth.api.v1beta1.Workload;
import dev.berth.engine.usage.Run;
import dev.berth.engine.usage.UsageLedger;
import dev.berth.engine.usage.UsageTotals;
import dev.berth.operator.admission.AdmissionLoop;
import dev.berth.operator.admission.ClusterState;
import dev.berth.operator.metrics.UsageMetrics;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * After each cycle, on the loop thread: feeds the usage ledger's events to the counters, hands each
 * ended run to the {@link UsageRecorder} (DCGM join and monthly UsageReport), and once it is in its
 * report adds it to its Workload's status.usage. A record that already counts the run (same
 * reservation time) is left alone, so a restart or a retry never bills twice; a write the API
 * server refuses is retried after the next cycle.
 */
public final class UsagePublisher implements Consumer<AdmissionLoop.CycleOutcome> {
  private static final Logger log = LoggerFactory.getLogger(UsagePublisher.class);

  private final KubernetesClient client;
  private final ClusterState state;
  private final UsageMetrics metrics;
  private final UsageRecorder recorder;
  private final List<Run> unrecorded = new ArrayList<>();

  public UsagePublisher(
      KubernetesClient client, ClusterState state, UsageMetrics metrics, UsageRecorder recorder) {
    this.client = client;
    this.state = state;
    this.metrics = metrics;
    this.recorder = recorder;
  }

  @Override
  public void accept(AdmissionLoop.CycleOutcome outcome) {
    for (UsageLedger.Event event : state.takeUsageEvents()) {
      metrics.apply(event);
      if (event instanceof UsageLedger.Ended ended) {
        recorder.submit(
            new UsageRecorder.Task(ended.run(), ended.durable(), state.podsOf(ended.run().uid())));
      }
    }
    unrecorded.addAll(recorder.takeRecorded());
    List<Run> pending = List.copyOf(unrecorded);
    unrecorded.clear();
    for (Run run : pending) {
      if (!record(run)) {
        unrecorded.add(run);
      }
    }
  }

  /** Whether the run is in the Workload's record now (or the Workload is gone). */
  private boolean record(Run run) {
    Workload known = state.latestWorkload(run.uid()).orElse(null);
    for (int attempt = 0; attempt < 2 && known != null; attempt++) {
      UsageTotals totals =
          UsageTranslator.totals(known.getStatus() == null ? null : known.getStatus().usage);
      if (totals.counts(run)) {
        return true;
      }
      Workload copy = Serialization.clone(known);
      copy.getStatus().usage = UsageTranslator.toApi(totals.plus(run));
      try {
        state.workload(client.resource(copy).updateStatus());
        return true;
      } catch (KubernetesClientException e) {
        if (e.getCode() == 404) {
          return true;
        }
        if (e.getCode() != 409) {
          log.debug("usage of {} not recorded ({}); retried", run.name(), e.getCode());
          return false;
        }
        known = client.resource(copy).get();
      }
    }
    return known == null;
  }
}
