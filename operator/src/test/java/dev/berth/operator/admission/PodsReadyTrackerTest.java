package dev.berth.operator.admission;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.api.v1beta1.Admission;
import dev.berth.api.v1beta1.Condition;
import dev.berth.api.v1beta1.Workload;
import dev.berth.api.v1beta1.WorkloadSpec;
import dev.berth.api.v1beta1.WorkloadStatus;
import dev.berth.engine.checks.RequeueBackoff;
import dev.berth.operator.WaitForPodsReady;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import org.junit.jupiter.api.Test;

/** Deadlines read from a Workload's conditions; times are fixed instants, no clock. */
class PodsReadyTrackerTest {
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private final WaitForPodsReady settings =
      new WaitForPodsReady(
          true,
          Duration.ofSeconds(10),
          false,
          Duration.ofSeconds(30),
          WaitForPodsReady.RequeuingTimestamp.Eviction,
          new RequeueBackoff(1, 2, 1));
  private final PodsReadyTracker tracker = new PodsReadyTracker(settings);

  @Test
  void anAdmittedWorkloadMustBeReadyWithinTheTimeoutOfItsAdmission() {
    Workload wl = admitted("uid-1");
    assertThat(tracker.deadline(wl)).hasValue(T0.plusSeconds(10).toEpochMilli());
    condition(wl, "PodsReady", "False", "WaitForStart", T0.plusSeconds(2));
    assertThat(tracker.deadline(wl)).hasValue(T0.plusSeconds(10).toEpochMilli());

    tracker.workload(wl, phase(wl));
    assertThat(tracker.next()).hasValue(T0.plusSeconds(10).toEpochMilli());
    assertThat(tracker.takeExpired(T0.plusSeconds(9).toEpochMilli())).isEmpty();
    assertThat(tracker.takeExpired(T0.plusSeconds(10).toEpochMilli())).containsExactly("uid-1");
    assertThat(tracker.next()).isEmpty();
  }

  @Test
  void readyIsNotTimedAndIsMeasuredOncePerAdmission() {
    Workload wl = admitted("uid-1");
    condition(wl, "PodsReady", "True", "PodsReady", T0.plusSeconds(4));
    assertThat(tracker.deadline(wl)).isEmpty();
    tracker.workload(wl, phase(wl));
    tracker.workload(wl, phase(wl));
    assertThat(tracker.takeBecameReady())
        .containsExactly(new PodsReadyTracker.BecameReady("cq", 4_000));
    assertThat(tracker.takeBecameReady()).isEmpty();
  }

  @Test
  void aWorkloadThatLostReadinessHasTheRecoveryTimeoutFromThen() {
    Workload wl = admitted("uid-1");
    condition(wl, "PodsReady", "False", "WaitForRecovery", T0.plusSeconds(100));
    assertThat(tracker.deadline(wl)).hasValue(T0.plusSeconds(130).toEpochMilli());
    WaitForPodsReady noRecovery =
        new WaitForPodsReady(
            true,
            Duration.ofSeconds(10),
            false,
            null,
            WaitForPodsReady.RequeuingTimestamp.Eviction,
            RequeueBackoff.DEFAULT);
    assertThat(new PodsReadyTracker(noRecovery).deadline(wl)).isEmpty();
  }

  @Test
  void nothingIsTimedUnlessAdmittedAndRunning() {
    Workload reserved = admitted("uid-1");
    condition(reserved, "Admitted", "False", "WaitingForAdmissionChecks", T0);
    assertThat(tracker.deadline(reserved)).isEmpty();
    Workload evicted = admitted("uid-2");
    condition(evicted, "Evicted", "True", "Preempted", T0);
    assertThat(tracker.deadline(evicted)).isEmpty();
    Workload inactive = admitted("uid-3");
    inactive.getSpec().active = false;
    assertThat(tracker.deadline(inactive)).isEmpty();
    WaitForPodsReady off = WaitForPodsReady.DEFAULT;
    assertThat(new PodsReadyTracker(off).deadline(admitted("uid-4"))).isEmpty();
  }

  @Test
  void aFailedWriteIsTimedAgainAndForgettingDropsIt() {
    Workload wl = admitted("uid-1");
    tracker.workload(wl, phase(wl));
    assertThat(tracker.takeExpired(Long.MAX_VALUE)).containsExactly("uid-1");
    tracker.again(wl);
    assertThat(tracker.next()).isPresent();
    tracker.forget("uid-1");
    assertThat(tracker.next()).isEmpty();
  }

  /** The phase the loop reads {@code wl} into, as it hands it to the tracker. */
  private WorkloadPhase phase(Workload wl) {
    return new PhaseClassifier(settings.enable()).classify(wl, T0.toEpochMilli());
  }

  private static Workload admitted(String uid) {
    Workload wl = new Workload();
    wl.getMetadata().setUid(uid);
    wl.getMetadata().setName(uid);
    wl.getMetadata().setNamespace("ns");
    wl.setSpec(new WorkloadSpec());
    wl.setStatus(new WorkloadStatus());
    wl.getStatus().conditions = new ArrayList<>();
    wl.getStatus().admission = new Admission();
    wl.getStatus().admission.clusterQueue = "cq";
    condition(wl, "QuotaReserved", "True", "QuotaReserved", T0);
    condition(wl, "Admitted", "True", "Admitted", T0);
    return wl;
  }

  private static void condition(
      Workload wl, String type, String status, String reason, Instant at) {
    wl.getStatus().conditions.removeIf(c -> type.equals(c.type));
    Condition c = new Condition(type, status, reason, "");
    c.lastTransitionTime = at.toString();
    wl.getStatus().conditions.add(c);
  }
}
