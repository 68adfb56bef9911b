package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.api.v1beta1.Berth;
import dev.berth.operator.jobset.JobSet;
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

  private static JobSet jobSet(String namespace, String name) {
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

  @Test
  void twoReplicatedJobsAreAdmittedAllOrNothing() {
    Scenario s = new Scenario("jobsets");
    s.client.resource(Objects.flavor("jobset-flavor", Map.of("pool", "training"))).create();
    s.client.resource(Objects.clusterQueue("jobset-cq", "jobset-flavor", "cpu", "6")).create();
    s.client.resource(Objects.localQueue(s.namespace, "lq", "jobset-cq")).create();

    s.client.resource(jobSet(s.namespace, "first")).create();
    await().atMost(Duration.ofSeconds(30)).until(() -> running(s, "first"));
    JobSet first = s.client.resources(JobSet.class).inNamespace(s.namespace).withName("first").get();
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

    // Plays the JobSet controller: the first one completes.
    s.client.resources(JobSet.class).inNamespace(s.namespace).withName("first").editStatus(js -> {
      js.setStatus(new JobSet.Status());
      js.getStatus().conditions =
          List.of(Map.of("type", "Completed", "status", "True", "reason", "AllJobsCompleted",
              "message", "jobset completed successfully", "lastTransitionTime", "2026-01-01T00:00:00Z"));
      return js;
    });
    await().atMost(Duration.ofSeconds(30)).until(() -> running(s, "second"));
  }
}
