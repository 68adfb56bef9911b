package dev.berth.operator.metrics;

import dev.berth.api.v1beta1.ClusterQueue;
import dev.berth.engine.Admission;
import dev.berth.engine.Eviction;
import dev.berth.engine.FlavorUsage;
import dev.berth.engine.QueueCounts;
import dev.berth.engine.StatusView;
import dev.berth.engine.quota.Quantity;
import dev.berth.operator.admission.AdmissionLoop;
import dev.berth.operator.admission.ClusterView;
import dev.berth.operator.admission.ModelTranslator;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The {@code berth_} metrics, per ClusterQueue (and LocalQueue, and cohort), on the loop thread:
 * counters after every admission cycle, gauges at most every {@link #GAUGES_EVERY}.
 */
public final class BerthMetrics implements Consumer<AdmissionLoop.CycleOutcome> {
  private final MeterRegistry registry;
  private final ClusterView state;
  private final GaugeTable pending;
  private final GaugeTable reserving;
  private final GaugeTable admittedActive;
  private final GaugeTable localPending;
  private final GaugeTable localAdmitted;
  private final GaugeTable localFairSharingUsage;
  private final GaugeTable nominal;
  private final GaugeTable borrowingLimit;
  private final GaugeTable lendingLimit;
  private final GaugeTable reservation;
  private final GaugeTable usage;
  private final GaugeTable cohortQuota;
  private final GaugeTable weightedShare;
  private final Timer cycleDuration;
  private final Counter attempts;

  /**
   * A ClusterQueue's per-reservation meters. Admission (the Admitted condition) has its own,
   * recorded where it is written ({@code AdmittedMetrics}): with admission checks it comes later.
   */
  private record ReservationMeters(Counter reserved, DistributionSummary reservedWait) {}

  /**
   * Looked up once per ClusterQueue, on the loop thread: building and registering meters per
   * admission (their ids hashed, the registry searched) was 2 % of the operator's CPU on issue 20's
   * baseline. Meters are never removed from the registry, so a kept one stays the registered one.
   */
  private final Map<String, ReservationMeters> reservationMeters = new HashMap<>();

  /**
   * The gauges are refreshed at most this often: a refresh sets every ClusterQueue's and
   * LocalQueue's rows (30 queues, ~300 rows), a scrape wants seconds, and under load cycles run up
   * to 100 a second. A cycle that comes too early asks for one at the bound, so the last change is
   * never left out.
   */
  static final Duration GAUGES_EVERY = Duration.ofMillis(500);

  private final Consumer<Duration> pokeAfter;
  private long gaugesAt = Long.MIN_VALUE / 2;
  private boolean gaugeWakeAsked;

  /**
   * @param pokeAfter asks the loop for a cycle after a delay (a refresh held back by {@link
   *     #GAUGES_EVERY})
   */
  public BerthMetrics(MeterRegistry registry, ClusterView state, Consumer<Duration> pokeAfter) {
    this.registry = registry;
    this.state = state;
    this.pokeAfter = pokeAfter;
    pending =
        new GaugeTable(
            registry,
            "berth_pending_workloads",
            "Pending workloads per ClusterQueue, by status (active, inadmissible)");
    reserving =
        new GaugeTable(
            registry,
            "berth_reserving_active_workloads",
            "Workloads holding quota in the ClusterQueue");
    admittedActive =
        new GaugeTable(
            registry,
            "berth_admitted_active_workloads",
            "Admitted workloads that have not finished");
    localPending =
        new GaugeTable(
            registry,
            "berth_local_queue_pending_workloads",
            "Pending workloads per LocalQueue, by status");
    localAdmitted =
        new GaugeTable(
            registry,
            "berth_local_queue_admitted_active_workloads",
            "Admitted workloads per LocalQueue");
    localFairSharingUsage =
        new GaugeTable(
            registry,
            "berth_local_queue_admission_fair_sharing_usage",
            "Admission fair sharing: the LocalQueue's decayed recent usage plus entry penalties,"
                + " weighted by resource, over its fairSharing.weight (lowest goes first)");
    nominal =
        new GaugeTable(
            registry, "berth_cluster_queue_nominal_quota", "Nominal quota per flavor and resource");
    borrowingLimit =
        new GaugeTable(
            registry,
            "berth_cluster_queue_borrowing_limit",
            "Borrowing limit per flavor and resource (absent: unbounded)");
    lendingLimit =
        new GaugeTable(
            registry,
            "berth_cluster_queue_lending_limit",
            "Lending limit per flavor and resource (absent: all unused quota)");
    reservation =
        new GaugeTable(
            registry,
            "berth_cluster_queue_resource_reservation",
            "Quota reserved per flavor and resource");
    usage =
        new GaugeTable(
            registry,
            "berth_cluster_queue_resource_usage",
            "Quota used by admitted workloads per flavor and resource");
    cohortQuota =
        new GaugeTable(
            registry,
            "berth_cohort_subtree_quota",
            "Quota of a cohort's subtree per flavor and resource");
    weightedShare =
        new GaugeTable(
            registry,
            "berth_cluster_queue_weighted_share",
            "Dominant-resource share divided by the fair-sharing weight, in thousandths");
    cycleDuration =
        Timer.builder("berth_admission_cycle_duration_seconds")
            .description("Time to decide one admission cycle and write its decisions")
            .publishPercentileHistogram()
            .register(registry);
    attempts =
        Counter.builder("berth_admission_attempts_total")
            .description("Workloads evaluated by admission cycles")
            .register(registry);
  }

  private ReservationMeters reservationMeters(String clusterQueue) {
    Tags cq = Tags.of("cluster_queue", clusterQueue);
    return new ReservationMeters(
        Counter.builder("berth_quota_reserved_workloads_total").tags(cq).register(registry),
        DistributionSummary.builder("berth_quota_reserved_wait_time_seconds")
            .description("From creation or the last requeue to quota reservation")
            .baseUnit("seconds")
            .publishPercentileHistogram()
            .tags(cq)
            .register(registry));
  }

  @Override
  public void accept(AdmissionLoop.CycleOutcome outcome) {
    cycleDuration.record(Duration.ofNanos(outcome.nanos()));
    attempts.increment(outcome.result().evaluations());
    for (Admission admission : outcome.result().admissions()) {
      ReservationMeters meters =
          reservationMeters.computeIfAbsent(admission.clusterQueue(), this::reservationMeters);
      meters.reserved().increment();
      // Per attempt: from creation, or from the last requeue, to this reservation.
      state
          .latestWorkload(admission.workloadUid())
          .map(ModelTranslator::queueTimestamp)
          .ifPresent(
              attemptStart ->
                  meters
                      .reservedWait()
                      .record(Math.max(0, admission.admittedAt() - attemptStart) / 1000.0));
    }
    // Evictions are asked for again until seen done: count each once, when first asked for.
    for (Eviction eviction : outcome.result().newEvictions()) {
      Counter.builder("berth_evicted_workloads_total")
          .tags("cluster_queue", eviction.clusterQueue(), "reason", eviction.reason().name())
          .register(registry)
          .increment();
      if (eviction.preemptionReason() != null) {
        // The preemptor is admitted in this cycle or still waits in its ClusterQueue.
        String preemptingQueue =
            state
                .admission(eviction.preemptorUid())
                .map(a -> a.clusterQueue())
                .orElseGet(
                    () -> {
                      var waiting = state.engineStatus().pendingStatus(eviction.preemptorUid());
                      return waiting == null || waiting.clusterQueue() == null
                          ? ""
                          : waiting.clusterQueue();
                    });
        Counter.builder("berth_preempted_workloads_total")
            .description("Workloads preempted, by the preemptor's ClusterQueue and the reason")
            .tags(
                "preempting_cluster_queue",
                preemptingQueue,
                "reason",
                eviction.preemptionReason().name())
            .register(registry)
            .increment();
      }
    }
    long now = System.nanoTime();
    long due = gaugesAt + GAUGES_EVERY.toNanos();
    if (now < due) {
      if (!gaugeWakeAsked) {
        gaugeWakeAsked = true;
        pokeAfter.accept(Duration.ofNanos(due - now).plusMillis(5));
      }
      return;
    }
    gaugesAt = now;
    gaugeWakeAsked = false;
    refreshGauges(state.engineStatus());
  }

  private void refreshGauges(StatusView engine) {
    NotYetAdmitted notAdmitted = new NotYetAdmitted(state.awaitingChecks(), state::admission);
    for (ClusterQueue cq : List.copyOf(state.clusterQueues())) {
      String name = cq.getMetadata().getName();
      String cohort =
          cq.getSpec() == null || cq.getSpec().cohortName == null ? "" : cq.getSpec().cohortName;
      QueueCounts counts = engine.clusterQueueCounts(name);
      Tags tags = Tags.of("cluster_queue", name);
      pending.set(tags.and("status", "active"), counts.pendingActive());
      pending.set(tags.and("status", "inadmissible"), counts.pendingInadmissible());
      reserving.set(tags, counts.reserving());
      admittedActive.set(tags, Math.max(0, counts.admitted() - notAdmitted.inClusterQueue(name)));
      weightedShare.set(tags, engine.weightedShare(name));
      for (FlavorUsage u : engine.usage(name)) {
        Tags fr =
            Tags.of(
                "cluster_queue",
                name,
                "cohort",
                cohort,
                "flavor",
                u.flavor(),
                "resource",
                u.resource());
        nominal.set(fr, human(u.resource(), u.nominal()));
        reservation.set(fr, human(u.resource(), u.total()));
        long held = notAdmitted.held(name, u.flavor(), u.resource());
        usage.set(fr, human(u.resource(), Math.max(0, u.total() - held)));
        if (!cohort.isEmpty()) {
          cohortQuota.set(
              Tags.of("cohort", cohort, "flavor", u.flavor(), "resource", u.resource()),
              human(u.resource(), engine.cohortSubtreeQuota(cohort, u.flavor(), u.resource())));
        }
      }
      if (cq.getSpec() != null && cq.getSpec().resourceGroups != null) {
        for (var g : cq.getSpec().resourceGroups) {
          for (var f : g.flavors) {
            for (var r : f.resources) {
              Tags fr =
                  Tags.of(
                      "cluster_queue",
                      name,
                      "cohort",
                      cohort,
                      "flavor",
                      f.name,
                      "resource",
                      r.name);
              if (r.borrowingLimit != null) {
                borrowingLimit.set(fr, r.borrowingLimit.getNumericalAmount().doubleValue());
              }
              if (r.lendingLimit != null) {
                lendingLimit.set(fr, r.lendingLimit.getNumericalAmount().doubleValue());
              }
            }
          }
        }
      }
    }
    for (var lq : List.copyOf(state.localQueues())) {
      QueueCounts counts =
          engine.localQueueCounts(lq.getMetadata().getNamespace(), lq.getMetadata().getName());
      Tags tags =
          Tags.of(
              "namespace",
              lq.getMetadata().getNamespace(),
              "local_queue",
              lq.getMetadata().getName());
      localPending.set(tags.and("status", "active"), counts.pendingActive());
      localPending.set(tags.and("status", "inadmissible"), counts.pendingInadmissible());
      localAdmitted.set(
          tags,
          Math.max(
              0,
              counts.admitted()
                  - notAdmitted.inLocalQueue(
                      lq.getMetadata().getNamespace(), lq.getMetadata().getName())));
      String cq = lq.getSpec() == null ? null : lq.getSpec().clusterQueue;
      if (cq != null && engine.ordersByUsage(cq)) {
        engine
            .localQueueUsage(lq.getMetadata().getNamespace(), lq.getMetadata().getName())
            .ifPresent(u -> localFairSharingUsage.set(tags.and("cluster_queue", cq), u.score()));
      }
    }
  }

  /** Canonical engine units back to the resource's natural unit (cores, bytes, GPUs). */
  static double human(String resource, long canonical) {
    return Quantity.isMilli(resource) ? canonical / 1000.0 : canonical;
  }
}
