package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.api.v1beta1.Berth;
import dev.berth.api.v1beta1.ClusterQueue;
import dev.berth.api.v1beta1.PodSet;
import dev.berth.api.v1beta1.ResourceFlavor;
import dev.berth.api.v1beta1.Workload;
import dev.berth.api.v1beta1.WorkloadSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** Workload deletion, standalone Workloads, and the resource-in-use finalizers. */
class LifecycleE2EIT {

  private static void parallelism(Scenario s, String job, int parallelism) {
    s.client
        .batch()
        .v1()
        .jobs()
        .inNamespace(s.namespace)
        .withName(job)
        .edit(
            j -> {
              j.getSpec().setParallelism(parallelism);
              return j;
            });
  }

  private static int podCount(Scenario s, String job) {
    return s.workload(job).map(w -> w.getSpec().podSets.get(0).count).orElse(-1);
  }

  @Test
  void aRunningJobResizedAroundTheWebhookIsStoppedAndRequeuedAtItsNewSize() {
    Scenario s = new Scenario("resized-running");
    s.queue("resized-running-cq", "2");
    var job = ScenarioObjects.job(s.namespace, "resized", "lq", 2, "1");
    job.getSpec().setCompletions(8);
    s.submit(job);
    s.awaitRunning("resized");
    // This API server has no webhooks, like a cluster whose webhook was unregistered: the
    // operator is the second lock. 4 pods of 1 cpu no longer match the Workload admitted for 2.
    parallelism(s, "resized", 4);
    await().atMost(Duration.ofSeconds(30)).until(() -> podCount(s, "resized") == 4);
    assertThat(s.running("resized")).isFalse();
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () ->
                assertThat(s.condition("resized", "QuotaReserved"))
                    .hasValueSatisfying(c -> assertThat(c.reason).isEqualTo("ExceedsMaxQuota")));
    assertThat(s.running("resized")).isFalse();
    // Shrunk while suspended (a re-queue): admitted and started at 1.
    parallelism(s, "resized", 1);
    s.awaitRunning("resized");
    assertThat(podCount(s, "resized")).isEqualTo(1);
  }

  @Test
  void deletingTheWorkloadOfARunningJobStopsItAndQueuesItAgain() {
    Scenario s = new Scenario("wl-deletion");
    s.queue("wl-deletion-cq", "1");
    s.submit(ScenarioObjects.job(s.namespace, "victim", "lq", 1, "1"));
    s.awaitRunning("victim");
    Workload first = s.workload("victim").orElseThrow();
    // Every version of the Job from now on: the stop may last only until the next admission, too
    // short for polling to see.
    List<Boolean> suspends = new CopyOnWriteArrayList<>();
    try (Watch watch =
        s.client
            .batch()
            .v1()
            .jobs()
            .inNamespace(s.namespace)
            .withName("victim")
            .watch(
                new Watcher<Job>() {
                  @Override
                  public void eventReceived(Action action, Job job) {
                    suspends.add(Boolean.TRUE.equals(job.getSpec().getSuspend()));
                  }

                  @Override
                  public void onClose(WatcherException cause) {}
                })) {
      s.client.resource(first).delete();
      // Stopped (suspended, so the Job controller deletes its pods), then admitted again under a
      // new Workload (the quota is free again) and started once more.
      await().atMost(Duration.ofSeconds(30)).until(() -> suspends.contains(true));
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  s.workload("victim")
                      .filter(w -> !w.getMetadata().getUid().equals(first.getMetadata().getUid()))
                      .isPresent());
      s.awaitRunning("victim");
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> suspends.lastIndexOf(false) > suspends.indexOf(true));
    }
    Workload second = s.workload("victim").orElseThrow();
    assertThat(second.getMetadata().getUid()).isNotEqualTo(first.getMetadata().getUid());
  }

  @Test
  void aJobWhoseWorkloadTheApiServerRefusesGetsAWarningSayingWhy() {
    // Stored around the webhook (it is not running here): two placement modes at once, which the
    // Workload's schema refuses. The Job must not wait silently.
    Scenario s = new Scenario("refused-wl");
    s.queue("refused-wl-cq", "4");
    var job = ScenarioObjects.job(s.namespace, "two-modes", "lq", 2, "1");
    job.getSpec().getTemplate().setMetadata(new io.fabric8.kubernetes.api.model.ObjectMeta());
    job.getSpec()
        .getTemplate()
        .getMetadata()
        .setAnnotations(
            Map.of(
                dev.berth.api.v1beta1.Berth.PODSET_REQUIRED_TOPOLOGY, "topology.berth.dev/rack",
                dev.berth.api.v1beta1.Berth.PODSET_PREFERRED_TOPOLOGY, "topology.berth.dev/block"));
    s.client.resource(job).create();
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(s.client.v1().events().inNamespace(s.namespace).list().getItems())
                    .anySatisfy(
                        e -> {
                          assertThat(e.getReason()).isEqualTo("InvalidWorkload");
                          assertThat(e.getInvolvedObject().getName()).isEqualTo("two-modes");
                          assertThat(e.getMessage())
                              .contains("only one of required, preferred and unconstrained");
                        }));
    assertThat(s.workload("two-modes")).isEmpty();
  }

  @Test
  void aStandaloneWorkloadIsAdmitted() {
    Scenario s = new Scenario("standalone");
    s.queue("standalone-cq", "4");
    Workload wl = new Workload();
    wl.getMetadata().setName("notebook");
    wl.getMetadata().setNamespace(s.namespace);
    wl.setSpec(new WorkloadSpec());
    wl.getSpec().queueName = "lq";
    wl.getSpec().podSets =
        List.of(
            new PodSet(
                "main",
                2,
                new PodTemplateSpecBuilder()
                    .withNewSpec()
                    .addNewContainer()
                    .withName("c")
                    .withImage("jupyter")
                    .withNewResources()
                    .addToRequests("cpu", new Quantity("1500m"))
                    .endResources()
                    .endContainer()
                    .endSpec()
                    .build()));
    s.client.resource(wl).create();
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              Workload stored = s.client.resource(wl).get();
              assertThat(stored.getStatus()).isNotNull();
              assertThat(stored.getStatus().admission).isNotNull();
              assertThat(
                      stored
                          .getStatus()
                          .admission
                          .podSetAssignments
                          .get(0)
                          .resourceUsage
                          .get("cpu")
                          .toString())
                  .isEqualTo("3");
            });
  }

  @Test
  void aFlavorInUseAndAClusterQueueHoldingQuotaAreNotRemovedUntilFree() {
    Scenario s = new Scenario("finalizers");
    s.queue("finalizers-cq", "1");
    s.submit(ScenarioObjects.job(s.namespace, "holder", "lq", 1, "1"));
    s.awaitRunning("holder");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                s.client
                        .resources(ResourceFlavor.class)
                        .withName("finalizers-cq-flavor")
                        .get()
                        .getMetadata()
                        .getFinalizers()
                        .contains(Berth.RESOURCE_IN_USE_FINALIZER)
                    && s.client
                        .resources(ClusterQueue.class)
                        .withName("finalizers-cq")
                        .get()
                        .getMetadata()
                        .getFinalizers()
                        .contains(Berth.RESOURCE_IN_USE_FINALIZER));

    s.client.resources(ResourceFlavor.class).withName("finalizers-cq-flavor").delete();
    s.client.resources(ClusterQueue.class).withName("finalizers-cq").delete();
    // Both stay while in use: their finalizers hold through the reconciles the delete triggers.
    await()
        .during(Duration.ofSeconds(2))
        .atMost(Duration.ofSeconds(3))
        .until(
            () ->
                s.client.resources(ClusterQueue.class).withName("finalizers-cq").get() != null
                    && s.client
                            .resources(ResourceFlavor.class)
                            .withName("finalizers-cq-flavor")
                            .get()
                        != null);

    // The Job finishes: the ClusterQueue holds nothing and goes, then the flavor is unused and
    // goes.
    Kubelet.complete(s.client, s.job("holder"));
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> s.client.resources(ClusterQueue.class).withName("finalizers-cq").get() == null);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                s.client.resources(ResourceFlavor.class).withName("finalizers-cq-flavor").get()
                    == null);
  }

  /**
   * Issue 13, item 4: the Hold copy the operator fed used to be overwritten by the reply of its own
   * status write, so a ClusterQueue being deleted admitted again, and said "stopped (Hold)".
   */
  @Test
  void aClusterQueueBeingDeletedAdmitsNothingNewAndSaysItIsTerminating() {
    Scenario s = new Scenario("cq-terminating");
    s.queue("cq-terminating", "2");
    s.submit(ScenarioObjects.job(s.namespace, "holder", "lq", 1, "1"));
    s.awaitRunning("holder");
    s.client.resources(ClusterQueue.class).withName("cq-terminating").delete();
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              // Queue status is written at a bounded rate: none yet is a reason to wait, not to
              // fail.
              var status = s.clusterQueue("cq-terminating").getStatus();
              assertThat(status).as("the ClusterQueue's status").isNotNull();
              var found =
                  status.conditions.stream().filter(c -> c.type.equals("Active")).findFirst();
              assertThat(found).as("its Active condition").isPresent();
              var active = found.get();
              assertThat(active.status).isEqualTo("False");
              assertThat(active.reason).isEqualTo("Terminating");
              assertThat(active.message)
                  .isEqualTo("ClusterQueue cq-terminating is terminating: it admits nothing new");
            });
    s.submit(ScenarioObjects.job(s.namespace, "late", "lq", 1, "1"));
    // It would fit (1 of 2 cpu is free), and stays suspended while the queue is on its way out;
    // the status writes of these cycles must not reopen it.
    await()
        .during(Duration.ofSeconds(4))
        .atMost(Duration.ofSeconds(6))
        .until(() -> !s.running("late"));
    Kubelet.complete(s.client, s.job("holder"));
    await().atMost(Duration.ofSeconds(30)).until(() -> s.clusterQueue("cq-terminating") == null);
    assertThat(s.running("late")).isFalse();
  }
}
