package dev.berth.operator.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import dev.berth.testing.Jobs;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.NamespaceableResource;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * A lifecycle write of unknown outcome is read back: applied (the same Job at a newer version
 * showing it) goes on as written; not applied, or a refusal, is thrown for the reconcile to retry.
 */
class ReadBackTest {
  private final KubernetesClient client = mock(KubernetesClient.class);
  private final AtomicInteger reads = new AtomicInteger();
  private Job stored;

  @SuppressWarnings("unchecked")
  ReadBackTest() {
    NamespaceableResource<HasMetadata> resource = mock(NamespaceableResource.class);
    when(client.resource(any(HasMetadata.class))).thenReturn(resource);
    when(resource.get())
        .thenAnswer(
            i -> {
              reads.incrementAndGet();
              return stored;
            });
  }

  private static Job job(String version, boolean suspend) {
    Job job = Jobs.named("j").in("team").queue("lq").request("cpu", "1").build();
    job.getMetadata().setUid("u-1");
    job.getMetadata().setResourceVersion(version);
    job.getSpec().setSuspend(suspend);
    return job;
  }

  private static Function<Job, Job> failing(int code) {
    return j -> {
      throw new KubernetesClientException(
          new StatusBuilder().withCode(code).withMessage("failed " + code).build());
    };
  }

  private void start(Job desired, Function<Job, Job> write) {
    ReadBack.write(client, desired, write, j -> !j.getSpec().getSuspend());
  }

  @Test
  void aStartAppliedThenAnswered500IsTakenAsWritten() {
    stored = job("8", false);
    assertThatCode(() -> start(job("7", false), failing(500))).doesNotThrowAnyException();
    assertThat(reads).hasValue(1);
  }

  @Test
  void anAppliedWriteReturnsTheObjectAsStoredAndOneAnsweredReturnsTheReply() {
    stored = job("8", false);
    assertThat(
            ReadBack.write(client, job("7", false), failing(503), j -> !j.getSpec().getSuspend()))
        .isSameAs(stored);
    Job reply = job("9", false);
    assertThat(ReadBack.write(client, job("8", false), j -> reply, j -> true)).isSameAs(reply);
    assertThat(reads).as("a write answered is not read back").hasValue(1);
  }

  @Test
  void aStartWithNoReplyThatWasNotAppliedIsThrown() {
    stored = job("7", true);
    assertThatThrownBy(
            () ->
                start(
                    job("7", false),
                    j -> {
                      throw new KubernetesClientException(
                          "reset", new java.io.IOException("connection reset"));
                    }))
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("reset");
  }

  @Test
  void aNewerVersionThatDoesNotShowTheWriteIsNotTakenForIt() {
    stored = job("9", true); // another writer's change, still suspended
    assertThatThrownBy(() -> start(job("7", false), failing(504)))
        .isInstanceOfSatisfying(
            KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(504));
  }

  @Test
  void anotherObjectOfTheSameNameIsNotTakenForIt() {
    stored = job("9", false);
    stored.getMetadata().setUid("u-2");
    assertThatThrownBy(() -> start(job("7", false), failing(500)))
        .isInstanceOf(KubernetesClientException.class);
  }

  @Test
  void aRefusalIsThrownWithoutAReadBack() {
    stored = Serialization.clone(job("8", false));
    assertThatThrownBy(() -> start(job("7", false), failing(409)))
        .isInstanceOfSatisfying(
            KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(409));
    assertThat(reads).hasValue(0);
  }
}
