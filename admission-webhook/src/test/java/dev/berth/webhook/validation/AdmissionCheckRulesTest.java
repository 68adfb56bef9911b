package dev.berth.webhook.validation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.api.v1beta1.AdmissionCheck;
import dev.berth.api.v1beta1.AdmissionCheckSpec;
import dev.berth.api.v1beta1.Workload;
import dev.berth.api.v1beta1.WorkloadStatus;
import dev.berth.api.v1beta1.WorkloadStatus.AdmissionCheckState;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** AdmissionCheck objects, and what a check's controller may write into a Workload's status. */
class AdmissionCheckRulesTest {
  private static AdmissionCheck check(String controller, AdmissionCheckSpec.Parameters p) {
    AdmissionCheck ac = new AdmissionCheck();
    ac.getMetadata().setName("capacity");
    ac.setSpec(new AdmissionCheckSpec(controller, p));
    return ac;
  }

  @Test
  void aValidCheckPasses() {
    assertThat(
            BerthValidators.admissionCheck(
                check(
                    "berth.dev/provisioning-request",
                    new AdmissionCheckSpec.Parameters(
                        "berth.dev", "ProvisioningRequestConfig", "spot"))))
        .isEmpty();
  }

  @Test
  void everyBadFieldIsNamedByItsPath() {
    assertThat(BerthValidators.admissionCheck(check(null, null)))
        .extracting(FieldError::path)
        .containsExactly("spec.controllerName");
    assertThat(
            BerthValidators.admissionCheck(
                check(
                    "x".repeat(254),
                    new AdmissionCheckSpec.Parameters("Bad_Group", "lower", null))))
        .extracting(FieldError::path)
        .containsExactly(
            "spec.controllerName",
            "spec.parameters.apiGroup",
            "spec.parameters.kind",
            "spec.parameters.name");
  }

  @Test
  void aFreeFormControllerNameIsAcceptedAsKueueAcceptsIt() {
    // Kueue's sample-admission-check.yaml names its controller ProvisioningRequestController.
    assertThat(BerthValidators.admissionCheck(check("ProvisioningRequestController", null)))
        .isEmpty();
    assertThat(BerthValidators.admissionCheck(check("x".repeat(253), null))).isEmpty();
  }

  @Test
  void theControllerCannotChange() {
    assertThat(
            BerthValidators.admissionCheckUpdate(
                check("example.com/a", null), check("example.com/b", null)))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.path()).isEqualTo("spec.controllerName");
              assertThat(e.message()).contains("immutable");
            });
  }

  private static Workload withChecks(String... states) {
    Workload wl = new Workload();
    wl.getMetadata().setName("wl");
    wl.setStatus(new WorkloadStatus());
    wl.getStatus().admissionChecks = new ArrayList<>();
    for (int i = 0; i < states.length; i++) {
      wl.getStatus()
          .admissionChecks
          .add(new AdmissionCheckState("check-" + i, states[i], "", null));
    }
    return wl;
  }

  @Test
  void aControllerWritesStatesButNotWhichChecksApply() {
    RequestGuard guard = new RequestGuard("berth", (user, check) -> true);
    assertThat(
            guard.checkWorkloadStatus(
                withChecks("Pending", "Pending"),
                withChecks("Ready", "Pending"),
                "capacity-controller"))
        .isEmpty();
    List<FieldError> added =
        guard.checkWorkloadStatus(
            withChecks("Pending"), withChecks("Ready", "Ready"), "capacity-controller");
    assertThat(added)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.path()).isEqualTo("status.admissionChecks");
              assertThat(e.message()).contains("not add or remove checks");
            });
    assertThat(guard.checkWorkloadStatus(withChecks(), withChecks("Pending"), "berth"))
        .as("the operator lists the checks")
        .isEmpty();
  }

  @Test
  void theMaximumExecutionTimeLabelIsAWholeNumberOfSeconds() {
    for (String bad : List.of("0", "-5", "ten", "1.5")) {
      String yaml =
          ObjectRulesTest.JOB.replace(
              "labels: {berth.dev/queue-name: team-a}",
              "labels: {berth.dev/queue-name: team-a, berth.dev/max-exec-time-seconds: '"
                  + bad
                  + "'}");
      assertThat(TestObjects.validate(yaml))
          .as(bad)
          .extracting(FieldError::path)
          .containsExactly("metadata.labels[berth.dev/max-exec-time-seconds]");
    }
    String ok =
        ObjectRulesTest.JOB.replace(
            "labels: {berth.dev/queue-name: team-a}",
            "labels: {berth.dev/queue-name: team-a, berth.dev/max-exec-time-seconds: '600'}");
    assertThat(TestObjects.validate(ok)).isEmpty();
  }
}
