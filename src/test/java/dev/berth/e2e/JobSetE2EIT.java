package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.api.v1beta1.Berth;
import dev.berth.operator.integration.jobset.JobSet;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.JobTemplateSpec;
import io.fabric8.kubernetes.api.model.batch.v1.JobTemplateSpecBuilder;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A JobSet with two replicatedJobs is admitted all or nothing. */
class JobSetE2EIT {

  private static JobSet.ReplicatedJob replicated(String name, int replicas, int parallelism) {
    JobSet.ReplicatedJob rj = new JobSet.ReplicatedJob();
    rj.name = name;
    rj.replicas = replicas;
    JobTemplateSpec template =
        new JobTemplateSpecBuilder()
            .withNewSpec()
            .withParallelism(parallelism)
            .withCompletions(parallelism)
            .withNewTemplate()
            .withNewSpec()
            .withRestartPolicy("Never")
            .addNewContainer()
            .withName("trainer")
            .withImage("trainer:1")
            .withNewResources()
            .addToRequests("cpu", new Quantity("1"))
            .endResources()
            .endContainer()
            .endSpec()
            .endTemplate()
            .endSpec()
            .build();
    rj.template = template;
    return rj;
  }

  /** A suspended JobSet of 5 cpu in queue lq (DisabledIntegrationIT creates one too). */
  static JobSet jobSet(String namespace, String name) {
    JobSet js = new JobSet();
    js.getMetadata().setNamespace(namespace);
    js.getMetadata().setName(name);
    js.getMetadata().setLabels(Map.of(Berth.QUEUE_NAME_LABEL, "lq"));
    js.setSpec(new JobSet.Spec());
    js.getSpec().suspend = true;
    // leader: 1 pod; workers: 2 Jobs of 2 pods. 5 cpu in all.
    js.getSpec().replicatedJobs = List.of(replicated("leader", 1, 1), replicated("workers", 2, 2));
    js.getSpec().setOther("network", Map.of("enableDNSHostnames", true));
    return js;
  }

  private static boolean running(Scenario s, String name) {
    JobSet js = s.client.resources(JobSet.class).inNamespace(s.namespace).withName(name).get();
    return js != null && Boolean.FALSE.equals(js.getSpec().suspend);
  }

  /**
   * A ClusterQueue {@code <prefix>-cq} of 6 cpu on flavor {@code <prefix>-flavor} (node label
   * pool), LocalQueue lq, and JobSet "first" (5 cpu) admitted and running.
   */
  private static Scenario firstRunning(String namespace, String prefix, String pool) {
    Scenario s = new Scenario(namespace);
    s.client.resource(ScenarioObjects.flavor(prefix + "-flavor", Map.of("pool", pool))).create();
    s.client
        .resource(ScenarioObjects.clusterQueue(prefix + "-cq", prefix + "-flavor", "cpu", "6"))
        .create();
    s.client.resource(ScenarioObjects.localQueue(s.namespace, "lq", prefix + "-cq")).create();
    s.client.resource(jobSet(s.namespace, "first")).create();
    await().atMost(Duration.ofSeconds(30)).until(() -> running(s, "first"));
    return s;
  }

  /** Plays the JobSet controller: the JobSet completes. */
  private static void complete(Scenario s, String name) {
    s.client
        .resources(JobSet.class)
        .inNamespace(s.namespace)
        .withName(name)
        .editStatus(
            js -> {
              js.setStatus(new JobSet.Status());
              js.getStatus().conditions =
                  List.of(
                      Map.of(
                          "type",
                          "Completed",
                          "status",
                          "True",
                          "reason",
                          "AllJobsCompleted",
                          "message",
                          "jobset completed successfully",
                          "lastTransitionTime",
                          "2026-01-01T00:00:00Z"));
              return js;
            });
  }

  @Test
  void twoReplicatedJobsAreAdmittedAllOrNothing() {
    Scenario s = firstRunning("jobsets", "jobset", "training");
    JobSet first =
        s.client.resources(JobSet.class).inNamespace(s.namespace).withName("first").get();
    for (JobSet.ReplicatedJob rj : first.getSpec().replicatedJobs) {
      assertThat(rj.template.getSpec().getTemplate().getSpec().getNodeSelector())
          .containsEntry("pool", "training");
    }
    assertThat(first.getSpec().getOther()).containsKey("network");

    // 5 more cpu do not fit in the 1 left: no part of the second JobSet starts.
    s.client.resource(jobSet(s.namespace, "second")).create();
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () ->
                assertThat(s.condition("second", "QuotaReserved"))
                    .hasValueSatisfying(c -> assertThat(c.status).isEqualTo("False")));
    assertThat(running(s, "second")).isFalse();
    assertThat(s.workload("second").orElseThrow().getSpec().podSets)
        .extracting(ps -> ps.name + "=" + ps.count)
        .containsExactly("leader=1", "workers=4");

    complete(s, "first");
    await().atMost(Duration.ofSeconds(30)).until(() -> running(s, "second"));
  }

  private static void resizeWorkers(Scenario s, String name, int replicas) {
    s.client
        .resources(JobSet.class)
        .inNamespace(s.namespace)
        .withName(name)
        .edit(
            js -> {
              js.getSpec().replicatedJobs.get(1).replicas = replicas;
              return js;
            });
  }

  private static String podSets(Scenario s, String name) {
    return s.workload(name)
        .map(w -> w.getSpec().podSets.stream().map(ps -> ps.name + "=" + ps.count).toList())
        .map(Object::toString)
        .orElse("none");
  }

  private static double reservedCpu(Scenario s, String clusterQueue) {
    var status = s.clusterQueue(clusterQueue).getStatus();
    if (status == null || status.flavorsReservation == null) {
      return -1;
    }
    return status.flavorsReservation.stream()
        .flatMap(f -> f.resources.stream())
        .filter(r -> r.name.equals("cpu"))
        .mapToDouble(r -> r.total.getNumericalAmount().doubleValue())
        .sum();
  }

  @Test
  void aJobSetResizedWhileQueuedIsRequeuedAtItsNewSize() {
    Scenario s = firstRunning("jobsets-resized", "resize", "resize");

    // 5 cpu in use; this one asks 5 too and waits, suspended.
    s.client.resource(jobSet(s.namespace, "waiting")).create();
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> podSets(s, "waiting").equals("[leader=1, workers=4]"));

    // Grown while queued to 1 + 4x2 = 9 cpu, more than the queue has: its Workload is replaced
    // by one of the new size, which can never be admitted. Before, the Workload made for 5 cpu
    // would have been admitted once the first finished, and the JobSet started at 9.
    resizeWorkers(s, "waiting", 4);
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> podSets(s, "waiting").equals("[leader=1, workers=8]"));
    complete(s, "first");
    // The queue is empty again (its status is written after the cycle that released the
    // quota), and the resized JobSet still waits: it can never fit.
    await().atMost(Duration.ofSeconds(30)).until(() -> reservedCpu(s, "resize-cq") == 0);
    // Its pending reason is written once it has waited 2 s, and only when it changes.
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(s.condition("waiting", "QuotaReserved"))
                    .hasValueSatisfying(c -> assertThat(c.reason).isEqualTo("ExceedsMaxQuota")));
    assertThat(running(s, "waiting")).isFalse();

    // Shrunk while queued: requeued at 1 + 1x2 = 3 cpu, which fits, and started at that size.
    resizeWorkers(s, "waiting", 1);
    await().atMost(Duration.ofSeconds(30)).until(() -> running(s, "waiting"));
    assertThat(podSets(s, "waiting")).isEqualTo("[leader=1, workers=2]");
  }
}
