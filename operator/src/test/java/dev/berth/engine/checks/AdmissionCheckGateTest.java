package dev.berth.engine.checks;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class AdmissionCheckGateTest {
  private static final Map<String, KnownCheck> ACTIVE =
      Map.of(
          "capacity", new KnownCheck("capacity", "berth.dev/provisioning-request", true, ""),
          "budget", new KnownCheck("budget", "example.com/budget", true, ""));

  private static CheckStatus s(String name, CheckState state, String message) {
    return new CheckStatus(name, state, message);
  }

  @Test
  void everyCheckReadyAdmits() {
    assertThat(
            AdmissionCheckGate.decide(
                List.of(s("capacity", CheckState.Ready, ""), s("budget", CheckState.Ready, "ok")),
                ACTIVE))
        .isEqualTo(new CheckVerdict.Admit());
  }

  @Test
  void onePendingCheckKeepsTheWorkloadWaitingAndSaysWhich() {
    CheckVerdict v =
        AdmissionCheckGate.decide(
            List.of(
                s("capacity", CheckState.Ready, ""),
                s("budget", CheckState.Pending, "asking finance")),
            ACTIVE);
    assertThat(v)
        .isEqualTo(
            new CheckVerdict.Wait(
                "Quota reserved; waiting for admission checks: budget (Pending: asking finance)"));
  }

  @Test
  void aCheckWithoutAnActiveControllerOrObjectIsNeverPassed() {
    Map<String, KnownCheck> known =
        Map.of("budget", new KnownCheck("budget", "example.com/budget", false, ""));
    CheckVerdict v =
        AdmissionCheckGate.decide(
            List.of(s("budget", CheckState.Pending, ""), s("gone", CheckState.Pending, "")), known);
    assertThat(v).isInstanceOf(CheckVerdict.Wait.class);
    assertThat(((CheckVerdict.Wait) v).message())
        .contains("budget (Pending; its controller example.com/budget has not marked it Active)")
        .contains("gone (AdmissionCheck gone does not exist)");
  }

  @Test
  void unknownStateCountsAsPendingNotReady() {
    assertThat(CheckState.of("Readyish")).isEqualTo(CheckState.Pending);
    assertThat(CheckState.of(null)).isEqualTo(CheckState.Pending);
    assertThat(CheckState.of("Ready")).isEqualTo(CheckState.Ready);
  }

  @Test
  void rejectedOutweighsRetryWhichOutweighsPending() {
    assertThat(
            AdmissionCheckGate.decide(
                List.of(
                    s("capacity", CheckState.Retry, "no spot"),
                    s("budget", CheckState.Rejected, "over budget")),
                ACTIVE))
        .isEqualTo(
            new CheckVerdict.Reject(
                "budget", "AdmissionCheck budget rejected the workload: over budget"));
    assertThat(
            AdmissionCheckGate.decide(
                List.of(
                    s("capacity", CheckState.Retry, "no spot"),
                    s("budget", CheckState.Pending, "")),
                ACTIVE))
        .isEqualTo(
            new CheckVerdict.Retry(
                "capacity", "AdmissionCheck capacity asked for a retry: no spot"));
  }

  @Test
  void checksApplyByAssignedFlavor() {
    List<CheckRule> rules =
        List.of(
            new CheckRule("capacity", Set.of("spot-h100")),
            new CheckRule("budget", Set.of()),
            new CheckRule("capacity", Set.of("a100")));
    assertThat(ApplicableChecks.of(rules, List.of("on-demand-h100"))).containsExactly("budget");
    assertThat(ApplicableChecks.of(rules, List.of("on-demand-h100", "spot-h100")))
        .containsExactly("capacity", "budget");
    assertThat(ApplicableChecks.of(List.of(), List.of("x"))).isEmpty();
  }
}
