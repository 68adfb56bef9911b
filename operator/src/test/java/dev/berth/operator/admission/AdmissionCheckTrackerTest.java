package dev.berth.operator.admission;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.api.v1beta1.Workload;
import dev.berth.api.v1beta1.WorkloadStatus.AdmissionCheckState;
import dev.berth.engine.checks.CheckState;
import dev.berth.engine.checks.CheckStatus;
import dev.berth.testing.Workloads;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The admission checks ledger fed as the loop feeds it, alone: a Workload version and its phase in,
 * the workloads awaiting their checks (and which to settle) out. Only a workload holding quota,
 * running and active awaits; once all its checks are Ready and it is Admitted it no longer does.
 */
class AdmissionCheckTrackerTest {
  private static final String T0 = "2026-01-01T00:00:00Z";

  private final AdmissionCheckTracker checks = new AdmissionCheckTracker();

  private static Workload withChecks(Workloads version, String... states) {
    Workload wl = version.build();
    List<AdmissionCheckState> list = new ArrayList<>();
    for (int i = 0; i < states.length; i++) {
      AdmissionCheckState s = new AdmissionCheckState();
      s.name = "check-" + i;
      s.state = states[i];
      s.message = "";
      list.add(s);
    }
    wl.getStatus().admissionChecks = list;
    return wl;
  }

  private void observe(Workload wl) {
    checks.workload(wl, new PhaseClassifier(false).classify(wl, Instant.parse(T0).toEpochMilli()));
  }

  private static Workloads train() {
    return Workloads.named("train").in("team").uid("train").queue("lq");
  }

  @Test
  void aReservedWorkloadAwaitsItsChecksUntilAllAreReadyAndItIsAdmitted() {
    observe(withChecks(train().reserved("cq", "default", T0), "Pending", "Ready"));

    assertThat(checks.awaiting())
        .containsEntry(
            "train",
            new AdmissionCheckTracker.Awaiting(
                "cq",
                Instant.parse(T0).toEpochMilli(),
                List.of(
                    new CheckStatus("check-0", CheckState.Pending, ""),
                    new CheckStatus("check-1", CheckState.Ready, ""))));
    assertThat(checks.takeToSettle()).containsExactly("train");
    assertThat(checks.takeToSettle()).isEmpty();

    observe(withChecks(train().reserved("cq", "default", T0), "Ready", "Ready"));
    assertThat(checks.awaiting())
        .as("all Ready, Admitted still to be written")
        .containsKey("train");
    assertThat(checks.takeToSettle()).containsExactly("train");

    observe(withChecks(train().admitted("cq", "default", T0), "Ready", "Ready"));
    assertThat(checks.awaiting()).isEmpty();
  }

  @Test
  void noneAwaitsOutsideReservedOrAdmitted() {
    observe(withChecks(train().condition("QuotaReserved", false, "Pending", T0), "Pending"));
    observe(
        withChecks(
            train().reserved("cq", "default", T0).evicted("AdmissionCheck", T0).uid("evicting"),
            "Retry"));
    observe(
        withChecks(
            train().reserved("cq", "default", T0).active(false).uid("deactivating"), "Pending"));
    observe(
        withChecks(
            train().reserved("cq", "default", T0).finished("Failed", T0).uid("finished"),
            "Pending"));

    assertThat(checks.awaiting()).isEmpty();
    assertThat(checks.takeToSettle()).isEmpty();
  }

  @Test
  void aDeletedWorkloadIsForgotten() {
    observe(withChecks(train().reserved("cq", "default", T0), "Pending"));

    checks.workloadDeleted("train", null);

    assertThat(checks.awaiting()).isEmpty();
    assertThat(checks.takeToSettle()).isEmpty();
  }
}
