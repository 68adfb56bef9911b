package dev.berth.operator.metrics;

import dev.berth.engine.checks.CheckState;
import dev.berth.engine.checks.CheckStatus;
import dev.berth.operator.admission.AdmissionCheckTracker;
import dev.berth.operator.admission.AdmissionLoop;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Per admission check, after each cycle: how many quota-reserved workloads wait on it and how long
 * the oldest has waited. A check whose controller never answers shows as a growing {@code
 * berth_admission_check_oldest_wait_seconds}, the series to alert on.
 */
public final class AdmissionCheckMetrics implements Consumer<AdmissionLoop.CycleOutcome> {
  private final AdmissionCheckTracker checks;
  private final Clock clock;
  private final GaugeTable waiting;
  private final GaugeTable oldest;

  public AdmissionCheckMetrics(MeterRegistry registry, AdmissionCheckTracker checks, Clock clock) {
    this.checks = checks;
    this.clock = clock;
    waiting =
        new GaugeTable(
            registry,
            "berth_admission_check_waiting_workloads",
            "Quota-reserved workloads whose state for this admission check is not Ready");
    oldest =
        new GaugeTable(
            registry,
            "berth_admission_check_oldest_wait_seconds",
            "Seconds the longest-waiting workload has held quota waiting for this admission check");
  }

  @Override
  public void accept(AdmissionLoop.CycleOutcome outcome) {
    long now = clock.millis();
    Map<Tags, Double> counts = new HashMap<>();
    Map<Tags, Double> ages = new HashMap<>();
    for (AdmissionCheckTracker.Awaiting a : checks.awaiting().values()) {
      for (CheckStatus s : a.states()) {
        if (s.state() == CheckState.Ready) {
          continue;
        }
        Tags tags = Tags.of("check", s.name(), "cluster_queue", a.clusterQueue());
        counts.merge(tags, 1.0, Double::sum);
        double age = a.reservedAt() > 0 ? Math.max(0, now - a.reservedAt()) / 1000.0 : 0;
        ages.merge(tags, age, Math::max);
      }
    }
    waiting.replaceAll(counts);
    oldest.replaceAll(ages);
  }
}
