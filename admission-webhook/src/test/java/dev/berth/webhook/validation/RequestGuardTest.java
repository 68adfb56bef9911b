package dev.berth.webhook.validation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.api.v1beta1.Workload;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Who may start a managed Job and who may write an admission. */
class RequestGuardTest {
  private static final String OPERATOR = "system:serviceaccount:berth-system:berth";
  private final RequestGuard guard = new RequestGuard(OPERATOR);

  private static JobView job(boolean managed, boolean suspended, boolean childOfJobSet) {
    String yaml =
        ObjectRulesTest.JOB.replace("parallelism: 4", "parallelism: 4\n  suspend: " + suspended);
    if (!managed) {
      yaml = yaml.replace("labels: {berth.dev/queue-name: team-a}", "labels: {}");
    }
    if (childOfJobSet) {
      yaml =
          yaml.replace(
              "  namespace: ns\n",
              "  namespace: ns\n  ownerReferences:\n"
                  + "  - {apiVersion: jobset.x-k8s.io/v1alpha2, kind: JobSet, name: js, uid: u,"
                  + " controller: true}\n");
    }
    return JobView.of(TestObjects.json(yaml));
  }

  private List<FieldError> start(JobView old, JobView job, String kind, String user) {
    return guard.checkStart(old, job, kind, user, Optional.empty());
  }

  @Test
  void inAManagedNamespaceEveryJobIsGuarded() {
    Optional<String> managed = Optional.of("ClusterQueue team-a selects it");
    assertThat(
            guard.checkStart(
                job(false, true, false), job(false, false, false), "Job", "alice", managed))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.path()).isEqualTo("spec.suspend");
              assertThat(e.message()).contains("its namespace is managed: ClusterQueue team-a");
            });
    assertThat(guard.checkStart(null, job(false, false, false), "Job", "alice", managed))
        .isNotEmpty();
    assertThat(
            guard.checkStart(
                job(false, true, false), job(false, false, false), "Job", OPERATOR, managed))
        .isEmpty();
    assertThat(
            guard.checkStart(
                job(true, true, true), job(true, false, true), "Job", "jobset", managed))
        .as("a JobSet's child Job follows its JobSet")
        .isEmpty();
  }

  @Test
  void onlyTheOperatorUnsuspendsAManagedJob() {
    assertThat(start(job(true, true, false), job(true, false, false), "Job", "alice"))
        .extracting(FieldError::path)
        .containsExactly("spec.suspend");
    assertThat(start(job(true, true, false), job(true, false, false), "Job", OPERATOR)).isEmpty();
  }

  @Test
  void removingTheLabelToUnsuspendIsStillStarting() {
    assertThat(start(job(true, true, false), job(false, false, false), "Job", "alice"))
        .isNotEmpty();
  }

  @Test
  void unmanagedAndJobSetChildrenAreNotGuarded() {
    assertThat(start(job(false, true, false), job(false, false, false), "Job", "alice")).isEmpty();
    assertThat(start(job(true, true, true), job(true, false, true), "Job", "jobset")).isEmpty();
  }

  @Test
  void creatingAManagedJobUnsuspendedIsRefusedForUsers() {
    assertThat(start(null, job(true, false, false), "Job", "alice")).isNotEmpty();
    assertThat(start(null, job(true, true, false), "Job", "alice")).isEmpty();
  }

  @Test
  void usersCannotWriteTheAdmission() {
    String admission =
        """
        status:
          conditions:
          - {type: QuotaReserved, status: "True", reason: QuotaReserved, message: ok}
          admission:
            clusterQueue: cq
            podSetAssignments:
            - {name: main, count: 4}
        """;
    Workload pending = TestObjects.parse(ObjectRulesTest.WL, Workload.class);
    Workload admitted = TestObjects.parse(ObjectRulesTest.WL + admission, Workload.class);
    assertThat(guard.checkWorkloadStatus(pending, admitted, "alice"))
        .extracting(FieldError::path)
        .containsExactly("status.admission", "status.conditions");
    assertThat(guard.checkWorkloadStatus(pending, admitted, OPERATOR)).isEmpty();
    assertThat(guard.checkWorkloadStatus(admitted, admitted, "alice")).isEmpty();
  }
}
