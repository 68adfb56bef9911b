package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.api.v1beta1.ClusterQueue;
import dev.berth.api.v1beta1.LocalQueue;
import dev.berth.api.v1beta1.QueueingStrategy;
import dev.berth.api.v1beta1.StopPolicy;
import dev.berth.api.v1beta1.WorkloadPriorityClass;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Ordering, strategies, stop policies and deletion, each in its own queue. */
class QueueingE2EIT {

  private static void queue(Scenario s, String cq, String nominal, QueueingStrategy strategy) {
    s.client.resource(ScenarioObjects.flavor(cq + "-flavor", Map.of("pool", cq))).serverSideApply();
    ClusterQueue queue = ScenarioObjects.clusterQueue(cq, cq + "-flavor", "cpu", nominal);
    queue.getSpec().queueingStrategy = strategy;
    s.client.resource(queue).create();
    s.client.resource(ScenarioObjects.localQueue(s.namespace, "lq", cq)).create();
  }

  @Test
  void aJobCreatedUnsuspendedIsSuspendedUntilAdmitted() {
    Scenario s = new Scenario("unsuspended");
    s.client.resource(ScenarioObjects.flavor("unsuspended-flavor", Map.of())).create();
    s.client
        .resource(ScenarioObjects.clusterQueue("unsuspended-cq", "unsuspended-flavor", "cpu", "1"))
        .create();
    s.client.resource(ScenarioObjects.localQueue(s.namespace, "lq", "unsuspended-cq")).create();
    Job blocker = ScenarioObjects.job(s.namespace, "blocker", "lq", 1, "1");
    s.submit(blocker);
    s.awaitRunning("blocker");

    Job sneaky = ScenarioObjects.job(s.namespace, "sneaky", "lq", 1, "1");
    sneaky.getSpec().setSuspend(false);
    s.client.resource(sneaky).create();
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> !s.running("sneaky") && s.workload("sneaky").isPresent());
    assertThat(s.staysSuspended("sneaky")).isTrue();

    Kubelet.complete(s.client, s.job("blocker"));
    s.awaitRunning("sneaky");
  }

  @Test
  void strictFifoHeadBlocksItsQueue() {
    Scenario s = new Scenario("strict");
    queue(s, "strict-cq", "4", QueueingStrategy.StrictFIFO);
    s.submit(ScenarioObjects.job(s.namespace, "first", "lq", 1, "3"));
    s.awaitRunning("first");
    s.submit(ScenarioObjects.job(s.namespace, "big", "lq", 1, "2"));
    s.submit(ScenarioObjects.job(s.namespace, "small", "lq", 1, "1"));
    // small would fit, but the head (big) does not, and StrictFIFO keeps the order.
    assertThat(s.staysSuspended("small")).isTrue();
    assertThat(s.running("big")).isFalse();
    Kubelet.complete(s.client, s.job("first"));
    s.awaitRunning("big", "small");
  }

  @Test
  void bestEffortFifoLetsSmallerWorkloadsPass() {
    Scenario s = new Scenario("besteffort");
    queue(s, "besteffort-cq", "4", QueueingStrategy.BestEffortFIFO);
    s.submit(ScenarioObjects.job(s.namespace, "first", "lq", 1, "3"));
    s.awaitRunning("first");
    s.submit(ScenarioObjects.job(s.namespace, "big", "lq", 1, "2"));
    s.submit(ScenarioObjects.job(s.namespace, "small", "lq", 1, "1"));
    s.awaitRunning("small");
    assertThat(s.running("big")).isFalse();
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            // The first reason is written once the workload has waited 2 s: absent until then.
            () ->
                assertThat(s.condition("big", "QuotaReserved"))
                    .hasValueSatisfying(
                        c ->
                            assertThat(c.message)
                                .contains("cpu")
                                .contains("besteffort-cq-flavor")));
  }

  @Test
  void higherPriorityIsAdmittedFirst() {
    Scenario s = new Scenario("priority");
    WorkloadPriorityClass high = new WorkloadPriorityClass();
    high.getMetadata().setName("priority-e2e-high");
    high.setValue(1000);
    s.client.resource(high).create();
    queue(s, "priority-cq", "2", QueueingStrategy.BestEffortFIFO);
    s.submit(ScenarioObjects.job(s.namespace, "running", "lq", 1, "2"));
    s.awaitRunning("running");
    s.submit(ScenarioObjects.job(s.namespace, "low", "lq", 1, "2"));
    Job urgent = ScenarioObjects.job(s.namespace, "urgent", "lq", 1, "2");
    urgent.getMetadata().getLabels().put("berth.dev/priority-class", "priority-e2e-high");
    s.submit(urgent);
    assertThat(s.workload("urgent").orElseThrow().getSpec().priority).isEqualTo(1000);

    Kubelet.complete(s.client, s.job("running"));
    s.awaitRunning("urgent");
    assertThat(s.staysSuspended("low")).isTrue();
  }

  /**
   * A spec change as a merge patch, which carries no resourceVersion: an edit() reads the object
   * and sends the change with the version it read, so a status write by the operator in between
   * made it a 409 (seen with two suites running at once).
   */
  private static void mergePatch(Resource<?> object, String json) {
    object.patch(PatchContext.of(PatchType.JSON_MERGE), json);
  }

  @Test
  void deletingAJobReleasesItsQuota() {
    Scenario s = new Scenario("deletion");
    queue(s, "deletion-cq", "2", QueueingStrategy.BestEffortFIFO);
    s.submit(ScenarioObjects.job(s.namespace, "holder", "lq", 1, "2"));
    s.awaitRunning("holder");
    s.submit(ScenarioObjects.job(s.namespace, "waiter", "lq", 1, "2"));
    assertThat(s.staysSuspended("waiter")).isTrue();
    s.client.resource(s.job("holder")).delete();
    s.awaitRunning("waiter");
    await().atMost(Duration.ofSeconds(10)).until(() -> s.workload("holder").isEmpty());
  }

  @Test
  void holdAndDrainEvictsAdmittedWorkloads() {
    Scenario s = new Scenario("drain");
    queue(s, "drain-cq", "4", QueueingStrategy.BestEffortFIFO);
    s.submit(ScenarioObjects.job(s.namespace, "victim", "lq", 1, "2"));
    s.awaitRunning("victim");
    mergePatch(
        s.client.resources(ClusterQueue.class).withName("drain-cq"),
        "{\"spec\":{\"stopPolicy\":\"" + StopPolicy.HoldAndDrain + "\"}}");
    await().atMost(Duration.ofSeconds(30)).until(() -> !s.running("victim"));
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              var reserved = s.condition("victim", "QuotaReserved").orElseThrow();
              assertThat(reserved.status).isEqualTo("False");
              assertThat(s.condition("victim", "Requeued").orElseThrow().reason)
                  .isEqualTo("ClusterQueueStopped");
            });
    // Held: nothing new is admitted until the queue is resumed.
    assertThat(s.staysSuspended("victim")).isTrue();
    mergePatch(
        s.client.resources(ClusterQueue.class).withName("drain-cq"),
        "{\"spec\":{\"stopPolicy\":\"" + StopPolicy.None + "\"}}");
    s.awaitRunning("victim");
  }

  @Test
  void aDeactivatedWorkloadIsEvictedAndNotRequeued() {
    Scenario s = new Scenario("deactivate");
    queue(s, "deactivate-cq", "2", QueueingStrategy.BestEffortFIFO);
    s.submit(ScenarioObjects.job(s.namespace, "stopped", "lq", 1, "2"));
    s.awaitRunning("stopped");
    s.submit(ScenarioObjects.job(s.namespace, "next", "lq", 1, "2"));
    var wl = s.workload("stopped").orElseThrow();
    mergePatch(s.client.resource(wl), "{\"spec\":{\"active\":false}}");
    await().atMost(Duration.ofSeconds(30)).until(() -> !s.running("stopped"));
    s.awaitRunning("next");
    assertThat(s.condition("stopped", "Requeued")).isEmpty();
    assertThat(s.staysSuspended("stopped")).isTrue();
  }

  @Test
  void anInvalidClusterQueueStoredAroundTheWebhookIsIgnoredWithAnEvent() {
    Scenario s = new Scenario("invalid-cq");
    ClusterQueue cq = ScenarioObjects.clusterQueue("invalid-cq", "shared-flavor", "cpu", "1");
    // The same flavor in two resource groups: the schema allows it, the validators do not.
    cq.getSpec().resourceGroups =
        java.util.List.of(
            cq.getSpec().resourceGroups.get(0),
            new dev.berth.api.v1beta1.ResourceGroup(
                java.util.List.of("memory"),
                java.util.List.of(
                    new dev.berth.api.v1beta1.FlavorQuotas(
                        "shared-flavor",
                        java.util.List.of(
                            new dev.berth.api.v1beta1.ResourceQuota("memory", "1Gi"))))));
    s.client.resource(cq).create();
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () ->
                assertThat(s.client.v1().events().inNamespace("default").list().getItems())
                    .anySatisfy(
                        e -> {
                          assertThat(e.getInvolvedObject().getName()).isEqualTo("invalid-cq");
                          assertThat(e.getReason()).isEqualTo("InvalidSpec");
                          assertThat(e.getMessage()).contains("spec.resourceGroups[1]");
                        }));
  }

  @Test
  void localQueueReportsItsCounts() {
    Scenario s = new Scenario("lqstatus");
    queue(s, "lqstatus-cq", "1", QueueingStrategy.BestEffortFIFO);
    s.submit(ScenarioObjects.job(s.namespace, "one", "lq", 1, "1"));
    s.submit(ScenarioObjects.job(s.namespace, "two", "lq", 1, "1"));
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              LocalQueue lq =
                  s.client
                      .resources(LocalQueue.class)
                      .inNamespace(s.namespace)
                      .withName("lq")
                      .get();
              assertThat(lq.getStatus()).isNotNull();
              assertThat(lq.getStatus().admittedWorkloads).isEqualTo(1);
              assertThat(lq.getStatus().pendingWorkloads).isEqualTo(1);
              assertThat(lq.getStatus().flavorsUsage)
                  .singleElement()
                  .satisfies(f -> assertThat(f.resources.get(0).total.toString()).isEqualTo("1"));
            });
  }
}
