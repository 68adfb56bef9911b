package dev.berth.operator.admission;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.api.v1beta1.Condition;
import dev.berth.api.v1beta1.Workload;
import dev.berth.operator.admission.WorkloadPhase.Admitted;
import dev.berth.operator.admission.WorkloadPhase.AwaitingRequeueReset;
import dev.berth.operator.admission.WorkloadPhase.BackingOff;
import dev.berth.operator.admission.WorkloadPhase.Deactivated;
import dev.berth.operator.admission.WorkloadPhase.Deactivating;
import dev.berth.operator.admission.WorkloadPhase.Evicting;
import dev.berth.operator.admission.WorkloadPhase.Finished;
import dev.berth.operator.admission.WorkloadPhase.Pending;
import dev.berth.operator.admission.WorkloadPhase.Reservation;
import dev.berth.operator.admission.WorkloadPhase.Reserved;
import dev.berth.testing.Workloads;
import java.time.Instant;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every combination of conditions, spec.active and requeueState that the loop tells apart, and the
 * phase each Workload version is read into: one named row each, the Workload built as the API
 * server would store it. No clock: {@link #NOW} is passed in.
 */
class PhaseClassifierTest {
  private static final String T0 = "2026-01-01T00:00:00Z";
  private static final String T1 = "2026-01-01T01:00:00Z";
  private static final String T2 = "2026-01-01T02:00:00Z";
  private static final long NOW = Instant.parse(T1).toEpochMilli();

  private static long millis(String t) {
    return Instant.parse(t).toEpochMilli();
  }

  /** Reserved in "cq" at T0. */
  private static Reservation held(boolean podsReady) {
    return new Reservation("cq", millis(T0), podsReady);
  }

  /**
   * @param waitForPodsReady the classifier's setting
   * @param edit a change the builder cannot make, applied to the built Workload
   */
  record Row(
      String name,
      boolean waitForPodsReady,
      Workloads workload,
      UnaryOperator<Workload> edit,
      WorkloadPhase expected) {
    Row(String name, Workloads workload, WorkloadPhase expected) {
      this(name, false, workload, w -> w, expected);
    }

    @Override
    public String toString() {
      return name;
    }
  }

  private static Workloads wl() {
    return Workloads.named("train").in("team").uid("train").queue("lq").request("cpu", "1");
  }

  static Stream<Row> rows() {
    return Stream.of(
        // Without quota.
        new Row("new, no status: pending", wl(), new Pending()),
        new Row(
            "the loop's pending condition (QuotaReserved False): pending",
            wl().condition("QuotaReserved", false, "Pending", T0),
            new Pending()),
        new Row(
            "QuotaReserved True without status.admission: pending",
            wl().condition("QuotaReserved", true, "QuotaReserved", T0),
            new Pending()),
        new Row(
            "status.admission without a ClusterQueue: pending",
            false,
            wl().reserved("cq", "default", T0),
            w -> {
              w.getStatus().admission.clusterQueue = null;
              return w;
            },
            new Pending()),
        new Row(
            "an admission whose QuotaReserved turned False (released): pending",
            wl().reserved("cq", "default", T0).condition("QuotaReserved", false, "Pending", T1),
            new Pending()),
        new Row(
            "evicted and released, back in the queue: pending",
            wl().condition("Evicted", true, "Preempted", T0)
                .condition("QuotaReserved", false, "Pending", T0),
            new Pending()),
        new Row(
            "requeueAt ahead: backing off until then",
            wl().requeueState(1, T2),
            new BackingOff(millis(T2))),
        new Row("requeueAt now: pending", wl().requeueState(1, T1), new Pending()),
        new Row("requeueAt passed: pending", wl().requeueState(1, T0), new Pending()),
        new Row("requeueAt unreadable: pending", wl().requeueState(1, "not a time"), new Pending()),
        new Row(
            "requeueState without requeueAt: pending", wl().requeueState(1, null), new Pending()),
        new Row(
            "spec.active=false: deactivated", wl().active(false), new WorkloadPhase.Deactivated()),
        new Row(
            "spec.active=false while backing off: deactivated",
            wl().active(false).requeueState(1, T2),
            new Deactivated()),
        new Row(
            "deactivated for the requeuing limit, still inactive: deactivated",
            true,
            wl().active(false).evicted(PodsReadyWriter.LIMIT_EXCEEDED, T0).requeueState(3, T2),
            w -> w,
            new Deactivated()),
        new Row(
            "reactivated after the requeuing limit, waitForPodsReady on: awaiting requeue reset",
            true,
            wl().evicted(PodsReadyWriter.LIMIT_EXCEEDED, T0).requeueState(3, T0),
            w -> w,
            new AwaitingRequeueReset()),
        new Row(
            "reactivated after the limit with requeueAt ahead: the reset comes first",
            true,
            wl().evicted(PodsReadyWriter.LIMIT_EXCEEDED, T0).requeueState(3, T2),
            w -> w,
            new AwaitingRequeueReset()),
        new Row(
            "reactivated after the limit, waitForPodsReady off: backing off as any other",
            wl().evicted(PodsReadyWriter.LIMIT_EXCEEDED, T0).requeueState(3, T2),
            new BackingOff(millis(T2))),
        new Row(
            "the limit's Evicted without a requeueState: pending",
            true,
            wl().evicted(PodsReadyWriter.LIMIT_EXCEEDED, T0),
            w -> w,
            new Pending()),
        new Row(
            "the limit's Evicted turned False: pending",
            true,
            wl().condition("Evicted", false, PodsReadyWriter.LIMIT_EXCEEDED, T0)
                .requeueState(3, T0),
            w -> w,
            new Pending()),
        new Row(
            "evicted for another reason, requeueAt ahead, waitForPodsReady on: backing off",
            true,
            wl().evicted("PodsReadyTimeout", T0).requeueState(1, T2),
            w -> w,
            new BackingOff(millis(T2))),
        // Holding quota.
        new Row(
            "quota reserved, checks pending: reserved",
            wl().reserved("cq", "default", T0),
            new Reserved(held(false))),
        new Row(
            "quota reserved, Admitted False: reserved",
            wl().reserved("cq", "default", T0)
                .condition("Admitted", false, "WaitingForAdmissionChecks", T0),
            new Reserved(held(false))),
        new Row(
            "admitted: admitted since Admitted turned True",
            wl().reserved("cq", "default", T0).condition("Admitted", true, "Admitted", T1),
            new Admitted(held(false), millis(T1))),
        new Row(
            "admitted with its pods ready",
            wl().admitted("cq", "default", T0).condition("PodsReady", true, "PodsReady", T1),
            new Admitted(held(true), millis(T0))),
        new Row(
            "admitted, PodsReady False",
            wl().admitted("cq", "default", T0).condition("PodsReady", false, "WaitForStart", T1),
            new Admitted(held(false), millis(T0))),
        new Row(
            "admitted with unreadable times: reservation and admission at 0",
            wl().admitted("cq", "default", "yesterday"),
            new Admitted(new Reservation("cq", 0, false), 0)),
        new Row(
            "admitted while backing off from an earlier requeue: admitted",
            wl().admitted("cq", "default", T0).requeueState(1, T2),
            new Admitted(held(false), millis(T0))),
        new Row(
            "Evicted True while holding quota: evicting",
            wl().admitted("cq", "default", T0).evicted("Preempted", T1),
            new Evicting(held(false))),
        new Row(
            "evicted before its checks passed: evicting",
            wl().reserved("cq", "default", T0).evicted("AdmissionCheck", T1),
            new Evicting(held(false))),
        new Row(
            "evicted and deactivated: evicting (the eviction is already under way)",
            wl().admitted("cq", "default", T0).evicted("Deactivated", T1).active(false),
            new Evicting(held(false))),
        new Row(
            "Evicted False while holding quota: admitted",
            wl().admitted("cq", "default", T0).condition("Evicted", false, "Preempted", T1),
            new Admitted(held(false), millis(T0))),
        new Row(
            "deactivated while admitted: deactivating",
            wl().admitted("cq", "default", T0).active(false),
            new Deactivating(held(false))),
        new Row(
            "deactivated while reserved: deactivating",
            wl().reserved("cq", "default", T0).active(false),
            new Deactivating(held(false))),
        new Row(
            "deactivated with its pods ready: deactivating, ready",
            wl().admitted("cq", "default", T0)
                .condition("PodsReady", true, "PodsReady", T1)
                .active(false),
            new Deactivating(held(true))),
        // Finished: whatever else it carries.
        new Row(
            "finished without ever holding quota",
            wl().finished("Failed", T1),
            new Finished(millis(T1), null, 0)),
        new Row(
            "finished while admitted: ran from its reservation",
            wl().admitted("cq", "default", T0).finished("Succeeded", T2),
            new Finished(millis(T2), "cq", millis(T0))),
        new Row(
            "finished after its quota was released: its admission still says where it ran",
            wl().reserved("cq", "default", T0)
                .condition("QuotaReserved", false, "Pending", T1)
                .finished("Succeeded", T2),
            new Finished(millis(T2), "cq", millis(T1))),
        new Row(
            "finished while evicting and deactivated",
            wl().admitted("cq", "default", T0)
                .evicted("Preempted", T1)
                .active(false)
                .finished("Failed", T2),
            new Finished(millis(T2), "cq", millis(T0))),
        new Row(
            "finished while backing off",
            wl().requeueState(1, T2).finished("Failed", T1),
            new Finished(millis(T1), null, 0)),
        new Row(
            "finished at an unreadable time",
            wl().admitted("cq", "default", T0).finished("Succeeded", "later"),
            new Finished(0, "cq", millis(T0))),
        new Row(
            "Finished False: not finished",
            wl().admitted("cq", "default", T0).condition("Finished", false, "Running", T1),
            new Admitted(held(false), millis(T0))),
        // How conditions are read.
        new Row(
            "of two conditions of a type, the first counts (as StatusConditions.find)",
            false,
            wl().reserved("cq", "default", T0),
            w -> {
              w.getStatus().conditions.add(0, condition("QuotaReserved", "False"));
              return w;
            },
            new Pending()),
        new Row(
            "a condition without a type is skipped",
            false,
            wl().reserved("cq", "default", T0),
            w -> {
              w.getStatus().conditions.add(0, condition(null, "True"));
              return w;
            },
            new Reserved(held(false))),
        new Row(
            "status Unknown is not True",
            false,
            wl().reserved("cq", "default", T0),
            w -> {
              w.getStatus().conditions.add(condition("Finished", "Unknown"));
              return w;
            },
            new Reserved(held(false))),
        new Row(
            "a Workload without a spec counts as active",
            false,
            wl().reserved("cq", "default", T0),
            w -> {
              w.setSpec(null);
              return w;
            },
            new Reserved(held(false))));
  }

  private static Condition condition(String type, String status) {
    Condition c = new Condition(type, status, "Other", "");
    c.lastTransitionTime = T0;
    return c;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rows")
  void eachVersionIsReadIntoOnePhase(Row row) {
    Workload wl = row.edit().apply(row.workload().build());

    WorkloadPhase phase = new PhaseClassifier(row.waitForPodsReady()).classify(wl, NOW);

    assertThat(phase).isEqualTo(row.expected());
    assertThat(phase.reservation())
        .as("a reservation exactly while holding quota")
        .isEqualTo(java.util.Optional.ofNullable(held(phase)));
    assertThat(phase.queued())
        .as("queued: not finished, without quota, active")
        .isEqualTo(
            phase instanceof Pending
                || phase instanceof BackingOff
                || phase instanceof AwaitingRequeueReset);
    if (row.waitForPodsReady()) {
      assertThat(PodsReadyTracker.reactivatedAfterLimit(wl))
          .isEqualTo(phase instanceof AwaitingRequeueReset);
    }
    // The predicates observe() chained before the phase was a value agree on every row.
    boolean finished = StatusConditions.isFinished(wl);
    boolean reserved = StatusConditions.hasQuotaReserved(wl) && !finished;
    boolean evicted = StatusConditions.isTrue(wl, StatusConditions.EVICTED);
    boolean active = wl.getSpec() == null || !Boolean.FALSE.equals(wl.getSpec().active);
    assertThat(phase instanceof Finished).as("isFinished").isEqualTo(finished);
    assertThat(phase.reservation().isPresent()).as("hasQuotaReserved").isEqualTo(reserved);
    assertThat(phase instanceof Evicting).as("reserved and Evicted").isEqualTo(reserved && evicted);
    assertThat(phase instanceof Deactivating)
        .as("reserved, not Evicted, inactive")
        .isEqualTo(reserved && !evicted && !active);
    assertThat(phase instanceof Admitted)
        .as("reserved, not Evicted, active, Admitted")
        .isEqualTo(
            reserved
                && !evicted
                && active
                && StatusConditions.isTrue(wl, StatusConditions.ADMITTED));
    assertThat(phase instanceof Deactivated)
        .as("inactive without quota")
        .isEqualTo(!finished && !reserved && !active);
    assertThat(phase instanceof BackingOff)
        .as("queued with requeueAt ahead")
        .isEqualTo(
            phase.queued()
                && !(phase instanceof AwaitingRequeueReset)
                && RequeueHold.requeueAt(wl) > NOW);
  }

  /** The reservation a quota-holding phase carries; null for the others. */
  private static Reservation held(WorkloadPhase phase) {
    if (phase instanceof Evicting e) {
      return e.held();
    } else if (phase instanceof Deactivating d) {
      return d.held();
    } else if (phase instanceof Reserved r) {
      return r.held();
    } else if (phase instanceof Admitted a) {
      return a.held();
    }
    return null;
  }
}
