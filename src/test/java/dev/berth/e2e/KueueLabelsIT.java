package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.api.v1beta1.Berth;
import dev.berth.testing.Jobs;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code compatibility.kueueLabels=true} on the chart's webhooks rendered with it: a team member's
 * Job written for Kueue (only {@code kueue.x-k8s.io/} labels and annotations) is queued by Berth as
 * if written for it, a bare Pod with Kueue's queue label waits behind Berth's gate, and Kueue's
 * label naming a LocalQueue that does not exist is refused as Berth's would be.
 */
class KueueLabelsIT {
  private static final String NAMESPACE = "team-kueue";

  @Test
  void manifestsWrittenForKueueAreQueuedByBerth() throws IOException {
    try (LoopbackBerth berth =
        LoopbackBerth.start(
            LoopbackBerth.defaultConfiguration(), NAMESPACE, "compatibility.kueueLabels=true")) {
      KubernetesClient admin = berth.admin;
      KubernetesClient member = berth.member;
      admin.resource(ScenarioObjects.flavor("kueue-flavor", Map.of())).create();
      admin.resource(ScenarioObjects.clusterQueue("kueue-cq", "kueue-flavor", "cpu", "1")).create();
      admin.resource(ScenarioObjects.localQueue(NAMESPACE, "user-queue", "kueue-cq")).create();

      // Two pods of one cpu in a queue of one: admitted partially, as Kueue's
      // job-min-parallelism asks.
      Job job =
          member
              .resource(
                  Jobs.named("sample-job")
                      .in(NAMESPACE)
                      .label("kueue.x-k8s.io/queue-name", "user-queue")
                      .annotation("kueue.x-k8s.io/job-min-parallelism", "1")
                      .parallelism(2)
                      .suspended(false)
                      .request("cpu", "1")
                      .build())
              .create();
      assertThat(job.getSpec().getSuspend()).isTrue();
      assertThat(job.getMetadata().getLabels())
          .containsEntry(Berth.QUEUE_NAME_LABEL, "user-queue")
          .containsEntry("kueue.x-k8s.io/queue-name", "user-queue");
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> {
                Job stored =
                    admin.batch().v1().jobs().inNamespace(NAMESPACE).withName("sample-job").get();
                assertThat(stored.getSpec().getSuspend()).isFalse();
                assertThat(stored.getSpec().getParallelism()).isEqualTo(1);
              });

      Pod bare =
          member
              .resource(
                  new PodBuilder()
                      .withNewMetadata()
                      .withName("kueue-sleep")
                      .withNamespace(NAMESPACE)
                      .addToLabels("kueue.x-k8s.io/queue-name", "user-queue")
                      .endMetadata()
                      .withNewSpec()
                      .addNewContainer()
                      .withName("c")
                      .withImage("busybox")
                      .withNewResources()
                      .addToRequests("cpu", new Quantity("1"))
                      .endResources()
                      .endContainer()
                      .endSpec()
                      .build())
              .create();
      assertThat(bare.getSpec().getSchedulingGates())
          .extracting(g -> g.getName())
          .contains(Berth.ADMISSION_SCHEDULING_GATE);

      // Kueue's label naming a LocalQueue that does not exist: held, as Berth's label would be,
      // never started outside a queue.
      Job lost =
          member
              .resource(
                  Jobs.named("lost")
                      .in(NAMESPACE)
                      .label("kueue.x-k8s.io/queue-name", "no-such-queue")
                      .suspended(false)
                      .request("cpu", "1")
                      .build())
              .create();
      assertThat(lost.getSpec().getSuspend()).isTrue();
      assertThat(lost.getMetadata().getLabels())
          .containsEntry(Berth.QUEUE_NAME_LABEL, "no-such-queue");
    }
  }
}
