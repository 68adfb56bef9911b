package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.berth.api.v1beta1.Workload;
import dev.berth.testing.Jobs;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The queue rule's narrow scope, {@code webhooks.manageJobsWithoutQueueName=false} (Kueue's
 * default), on the chart's webhooks rendered with that value: in a namespace a ClusterQueue
 * selects, a team member's unlabelled Job and pod run as they would without Berth (stored as
 * written, no Workload), while a labelled Job is still suspended, queued and started by the
 * operator alone, and a labelled pod still waits behind its gate. The wide scope, the default, is
 * the bypass suite's ({@code TeamMemberBypassIT}).
 */
class LabelledOnlyScopeIT {
  private static final String NAMESPACE = "team-labelled";

  @Test
  void onlyLabelledObjectsAreBerthsAndTheyStayInTheirQueue() throws IOException {
    try (LoopbackBerth berth =
        LoopbackBerth.start(
            LoopbackBerth.defaultConfiguration(),
            NAMESPACE,
            "webhooks.manageJobsWithoutQueueName=false")) {
      KubernetesClient admin = berth.admin;
      KubernetesClient member = berth.member;
      // A ClusterQueue selecting every namespace: under the wide scope NAMESPACE would be
      // managed.
      admin.resource(ScenarioObjects.flavor("labelled-flavor", Map.of())).create();
      admin
          .resource(ScenarioObjects.clusterQueue("labelled-cq", "labelled-flavor", "cpu", "8"))
          .create();
      admin.resource(ScenarioObjects.localQueue(NAMESPACE, "lq", "labelled-cq")).create();

      Job unlabelled =
          member
              .resource(
                  Jobs.named("unlabelled")
                      .in(NAMESPACE)
                      .suspended(false)
                      .request("cpu", "1")
                      .build())
              .create();
      assertThat(unlabelled.getSpec().getSuspend()).isFalse();
      Pod bare =
          member
              .resource(
                  new PodBuilder()
                      .withNewMetadata()
                      .withName("bare")
                      .withNamespace(NAMESPACE)
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
      assertThat(bare.getSpec().getSchedulingGates()).isNullOrEmpty();

      // A labelled Job is Berth's: suspended at creation, started by the operator only.
      Job labelled =
          member
              .resource(
                  Jobs.named("labelled")
                      .in(NAMESPACE)
                      .queue("lq")
                      .suspended(false)
                      .request("cpu", "1")
                      .build())
              .create();
      assertThat(labelled.getSpec().getSuspend()).isTrue();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  Boolean.FALSE.equals(
                      admin
                          .batch()
                          .v1()
                          .jobs()
                          .inNamespace(NAMESPACE)
                          .withName("labelled")
                          .get()
                          .getSpec()
                          .getSuspend()));
      // More than the queue has: it stays suspended, so the operator never writes it and only the
      // member's own requests below reach it.
      Job second =
          member
              .resource(Jobs.named("second").in(NAMESPACE).queue("lq").request("cpu", "16").build())
              .create();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  admin.resources(Workload.class).inNamespace(NAMESPACE).list().getItems().stream()
                      .anyMatch(
                          w ->
                              w.getMetadata().getOwnerReferences().get(0).getName().equals("second")
                                  && w.getStatus() != null
                                  && w.getStatus().conditions != null
                                  && !w.getStatus().conditions.isEmpty()));
      assertThatThrownBy(
              () ->
                  member
                      .batch()
                      .v1()
                      .jobs()
                      .inNamespace(NAMESPACE)
                      .withName(second.getMetadata().getName())
                      .edit(
                          j -> {
                            j.getSpec().setSuspend(false);
                            return j;
                          }))
          .isInstanceOf(KubernetesClientException.class)
          .hasMessageContaining("denied");
      // Nor may the label go while it waits: that would be the way around the queue.
      assertThatThrownBy(
              () ->
                  member
                      .batch()
                      .v1()
                      .jobs()
                      .inNamespace(NAMESPACE)
                      .withName(second.getMetadata().getName())
                      .edit(
                          j -> {
                            j.getMetadata().getLabels().remove("berth.dev/queue-name");
                            return j;
                          }))
          .isInstanceOf(KubernetesClientException.class)
          .hasMessageContaining("denied");

      // The unlabelled Job got no Workload; the labelled ones did.
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () ->
                  assertThat(
                          admin
                              .resources(Workload.class)
                              .inNamespace(NAMESPACE)
                              .list()
                              .getItems()
                              .stream()
                              .map(w -> w.getMetadata().getOwnerReferences().get(0).getName())
                              .sorted()
                              .toList())
                      .containsExactly("labelled", "second"));
    }
  }
}
