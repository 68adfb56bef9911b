package dev.berth.webhook.validation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.api.v1beta1.Workload;
import dev.berth.api.v1beta1.WorkloadStatus;
import dev.berth.api.v1beta1.WorkloadStatus.AdmissionCheckState;
import dev.berth.api.v1beta1.WorkloadStatus.PodSetUpdate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The status guard's decision on a check's state: a user other than the operator writes it only
 * when granted that check; the grant is asked per changed check, with the user's whole identity.
 */
class CheckStateGuardTest {
  private static final String OPERATOR = "system:serviceaccount:berth-system:berth";
  private static final RequestUser CAPACITY_CONTROLLER =
      new RequestUser(
          "system:serviceaccount:capacity-system:provisioner",
          "uid-1",
          List.of("system:serviceaccounts", "system:authenticated"),
          Map.of("authentication.kubernetes.io/pod-name", List.of("provisioner-0")));

  private final List<String> asked = new CopyOnWriteArrayList<>();

  /** Grants {@code granted} to the capacity controller, nothing to anyone else; records asks. */
  private RequestGuard guard(Set<String> granted) {
    return new RequestGuard(
        OPERATOR,
        (user, check) -> {
          asked.add(user.username() + " " + check);
          return user.equals(CAPACITY_CONTROLLER) && granted.contains(check);
        });
  }

  private static Workload listing(String... checks) {
    Workload wl = new Workload();
    wl.getMetadata().setName("wl");
    wl.setStatus(new WorkloadStatus());
    wl.getStatus().admissionChecks = new ArrayList<>();
    for (String check : checks) {
      wl.getStatus()
          .admissionChecks
          .add(new AdmissionCheckState(check, "Pending", null, "2026-01-01T00:00:00Z"));
    }
    return wl;
  }

  private static Workload with(
      Workload wl, String check, java.util.function.Consumer<AdmissionCheckState> change) {
    Workload copy = io.fabric8.kubernetes.client.utils.Serialization.clone(wl);
    change.accept(
        copy.getStatus().admissionChecks.stream()
            .filter(c -> c.name.equals(check))
            .findFirst()
            .orElseThrow());
    return copy;
  }

  @Test
  void aGrantedCheckIsWrittenAndAnotherChecksStateIsDeniedNamingTheField() {
    Workload old = listing("capacity", "budget");
    RequestGuard guard = guard(Set.of("capacity"));
    assertThat(
            guard.checkWorkloadStatus(
                old, with(old, "capacity", c -> c.state = "Ready"), CAPACITY_CONTROLLER))
        .isEmpty();
    assertThat(asked).containsExactly(CAPACITY_CONTROLLER.username() + " capacity");

    List<FieldError> errors =
        guard.checkWorkloadStatus(
            old,
            with(
                old,
                "budget",
                c -> {
                  c.state = "Ready";
                  c.message = "forged";
                }),
            CAPACITY_CONTROLLER);
    assertThat(errors)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.path()).isEqualTo("status.admissionChecks[1].state");
              assertThat(e.type()).isEqualTo(FieldError.Type.FORBIDDEN);
              assertThat(e.detail())
                  .contains("user \"" + CAPACITY_CONTROLLER.username() + "\"")
                  .contains("admission check \"budget\"")
                  .contains("changed: state, message")
                  .contains("\"update-state\" on admissionchecks.berth.dev \"budget\"");
            });
  }

  @Test
  void everyFieldOfAnEntryIsTheChecksState() {
    Workload old = listing("capacity", "budget");
    RequestGuard guard = guard(Set.of("capacity"));
    PodSetUpdate update = new PodSetUpdate();
    update.name = "main";
    update.annotations =
        Map.of("cluster-autoscaler.kubernetes.io/consume-provisioning-request", "x");
    assertThat(
            guard.checkWorkloadStatus(
                old,
                with(old, "budget", c -> c.podSetUpdates = List.of(update)),
                CAPACITY_CONTROLLER))
        .singleElement()
        .satisfies(e -> assertThat(e.path()).isEqualTo("status.admissionChecks[1].podSetUpdates"));
    assertThat(
            guard.checkWorkloadStatus(
                old, with(old, "budget", c -> c.message = "forged"), CAPACITY_CONTROLLER))
        .singleElement()
        .satisfies(e -> assertThat(e.path()).isEqualTo("status.admissionChecks[1].message"));
    assertThat(
            guard.checkWorkloadStatus(
                old,
                with(old, "budget", c -> c.lastTransitionTime = "2026-01-01T00:05:00Z"),
                CAPACITY_CONTROLLER))
        .singleElement()
        .satisfies(
            e -> assertThat(e.path()).isEqualTo("status.admissionChecks[1].lastTransitionTime"));
  }

  @Test
  void unchangedEntriesAskNothingAndReorderingIsNotAWrite() {
    Workload old = listing("capacity", "budget");
    RequestGuard guard = guard(Set.of());
    Workload reordered = listing("budget", "capacity");
    assertThat(guard.checkWorkloadStatus(old, reordered, CAPACITY_CONTROLLER)).isEmpty();
    assertThat(guard.checkWorkloadStatus(old, listing("capacity", "budget"), CAPACITY_CONTROLLER))
        .isEmpty();
    assertThat(asked).isEmpty();
  }

  @Test
  void withoutAnyGrantEvenTheControllersOwnCheckIsDenied() {
    Workload old = listing("capacity", "budget");
    assertThat(
            guard(Set.of())
                .checkWorkloadStatus(
                    old, with(old, "capacity", c -> c.state = "Ready"), CAPACITY_CONTROLLER))
        .singleElement()
        .satisfies(e -> assertThat(e.path()).isEqualTo("status.admissionChecks[0].state"));
    assertThat(
            new RequestGuard(OPERATOR)
                .checkWorkloadStatus(
                    old, with(old, "capacity", c -> c.state = "Ready"), CAPACITY_CONTROLLER))
        .as("no grants configured: nobody but the operator")
        .hasSize(1);
  }

  @Test
  void theGrantIsAskedWithTheWholeIdentity() {
    Workload old = listing("capacity");
    RequestUser sameNameOtherGroups =
        new RequestUser(CAPACITY_CONTROLLER.username(), "uid-1", List.of(), Map.of());
    assertThat(
            guard(Set.of("capacity"))
                .checkWorkloadStatus(
                    old, with(old, "capacity", c -> c.state = "Ready"), sameNameOtherGroups))
        .hasSize(1);
  }

  @Test
  void theOperatorIsNotAsked() {
    Workload old = listing("capacity", "budget");
    assertThat(
            guard(Set.of())
                .checkWorkloadStatus(
                    old, with(old, "budget", c -> c.state = "Ready"), RequestUser.named(OPERATOR)))
        .isEmpty();
    assertThat(asked).isEmpty();
  }

  @Test
  void whenTheGrantCannotBeConfirmedTheWriteIsDenied() {
    Workload old = listing("capacity", "budget");
    RequestGuard guard =
        new RequestGuard(
            OPERATOR,
            (user, check) -> {
              throw new CheckStateGrants.Unavailable("connection refused", null);
            });
    assertThat(
            guard.checkWorkloadStatus(
                old, with(old, "capacity", c -> c.state = "Ready"), CAPACITY_CONTROLLER))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.path()).isEqualTo("status.admissionChecks[0].state");
              assertThat(e.detail())
                  .contains("could not confirm a grant (connection refused)")
                  .contains("denies");
            });
  }

  @Test
  void aNewEntryIsTheListsBusinessNotAStateWrite() {
    Workload old = listing("capacity");
    List<FieldError> errors =
        guard(Set.of("capacity"))
            .checkWorkloadStatus(old, listing("capacity", "budget"), CAPACITY_CONTROLLER);
    assertThat(errors)
        .singleElement()
        .satisfies(e -> assertThat(e.path()).isEqualTo("status.admissionChecks"));
    assertThat(asked).isEmpty();
  }
}
