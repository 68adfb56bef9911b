package dev.berth.operator.integration;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.RETURNS_DEEP_STUBS;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import dev.berth.api.v1beta1.Workload;
import dev.berth.operator.events.EventRecorder;
import dev.berth.operator.integration.job.JobAdapter;
import dev.berth.testing.Jobs;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A suspended Job without a Workload gets one; a create the API server refused must be retried.
 * Found by the fault-injection suite: a create answered 409 Conflict was taken for AlreadyExists,
 * the reconcile ended, and with no later event of the Job it never got a Workload (a lost Job).
 */
class WorkloadCreationTest {
  private final KubernetesClient client = mock(KubernetesClient.class, RETURNS_DEEP_STUBS);
  private final WorkloadLifecycle<Job> lifecycle =
      new WorkloadLifecycle<>(
          new JobAdapter(),
          new PriorityResolver(client),
          FixedFlavors.NONE,
          // Events go nowhere: posted through the mocked client, they would use it from the
          // recorder's threads while the test stubs and calls it (Mockito mocks are not
          // thread-safe).
          new EventRecorder(event -> {}),
          Clock.systemUTC());

  private static Job suspendedJob() {
    return Jobs.named("train").in("team").uid("uid-train").queue("lq").request("cpu", "1").build();
  }

  private void createAnswers(int code, String reason) {
    when(client.resource(any(Workload.class)).create())
        .thenThrow(
            new KubernetesClientException(
                new StatusBuilder().withCode(code).withReason(reason).withMessage(reason).build()));
  }

  @Test
  void aCreateRefusedWithConflictIsThrownSoThatTheReconcileIsRetried() {
    createAnswers(409, "Conflict");

    assertThatThrownBy(() -> lifecycle.reconcile(client, suspendedJob(), Optional.empty()))
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("Conflict");
  }

  @Test
  void aCreateAnsweredAlreadyExistsWaitsForTheWorkloadsEvent() {
    createAnswers(409, "AlreadyExists");

    assertThatCode(() -> lifecycle.reconcile(client, suspendedJob(), Optional.empty()))
        .doesNotThrowAnyException();
  }

  @Test
  void aCreateAnswered500IsThrown() {
    createAnswers(500, "InternalError");

    assertThatThrownBy(() -> lifecycle.reconcile(client, suspendedJob(), Optional.empty()))
        .isInstanceOf(KubernetesClientException.class);
  }
}
