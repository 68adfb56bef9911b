package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.api.v1beta1.ClusterQueue;
import dev.berth.api.v1beta1.Workload;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The operator admitting Jobs against quota, on a real API server. */
class AdmissionE2EIT {
  private static KubernetesClient client;

  @BeforeAll
  static void setUp() {
    client = TestApiServer.client();
    RunningOperator.shared();
  }

  private static Job job(String namespace, String name) {
    return client.batch().v1().jobs().inNamespace(namespace).withName(name).get();
  }

  private static boolean running(String namespace, String name) {
    Job job = job(namespace, name);
    return job != null && Boolean.FALSE.equals(job.getSpec().getSuspend());
  }

  private static Workload workloadOf(String namespace, String jobName) {
    return client.resources(Workload.class).inNamespace(namespace).list().getItems().stream()
        .filter(w -> w.getMetadata().getOwnerReferences().get(0).getName().equals(jobName))
        .findFirst()
        .orElse(null);
  }

  @Test
  void threeTwoCpuJobsInAFiveCpuQueue() throws Exception {
    String ns = "team-basic";
    Namespaces.ensure(client, ns);
    client
        .resource(ScenarioObjects.flavor("basic-flavor", Map.of("instance-type", "basic")))
        .create();
    client.resource(ScenarioObjects.clusterQueue("basic-cq", "basic-flavor", "cpu", "5")).create();
    client.resource(ScenarioObjects.localQueue(ns, "basic", "basic-cq")).create();
    Scenario scenario = new Scenario(ns);
    for (String name : List.of("job-a", "job-b", "job-c")) {
      scenario.submit(ScenarioObjects.job(ns, name, "basic", 1, "2"));
    }

    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              assertThat(running(ns, "job-a")).isTrue();
              assertThat(running(ns, "job-b")).isTrue();
            });
    assertThat(job(ns, "job-a").getSpec().getTemplate().getSpec().getNodeSelector())
        .containsEntry("instance-type", "basic");

    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              Workload waiting = workloadOf(ns, "job-c");
              assertThat(waiting.getStatus()).isNotNull();
              var reserved =
                  waiting.getStatus().conditions.stream()
                      .filter(c -> c.type.equals("QuotaReserved"))
                      .findFirst()
                      .orElseThrow();
              assertThat(reserved.status).isEqualTo("False");
              assertThat(reserved.reason).isEqualTo("WaitingForQuota");
              assertThat(reserved.message).contains("cpu").contains("basic-flavor").contains("1");
            });
    assertThat(running(ns, "job-c")).isFalse();

    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              ClusterQueue cq = client.resources(ClusterQueue.class).withName("basic-cq").get();
              assertThat(cq.getStatus()).isNotNull();
              assertThat(cq.getStatus().admittedWorkloads).isEqualTo(2);
              assertThat(cq.getStatus().pendingWorkloads).isEqualTo(1);
              assertThat(cq.getStatus().flavorsReservation.get(0).resources.get(0).total.toString())
                  .isEqualTo("4");
            });

    Kubelet.complete(client, job(ns, "job-a"));
    await().atMost(Duration.ofSeconds(30)).until(() -> running(ns, "job-c"));
    assertThat(workloadOf(ns, "job-a").getStatus().conditions)
        .anySatisfy(c -> assertThat(c.type + c.status).isEqualTo("FinishedTrue"));

    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              String metrics = http("/metrics");
              assertThat(metrics)
                  .contains("berth_admitted_workloads_total{cluster_queue=\"basic-cq\"} 3.0")
                  .contains("berth_reserving_active_workloads{cluster_queue=\"basic-cq\"} 2.0")
                  .contains(
                      "berth_pending_workloads{cluster_queue=\"basic-cq\",status=\"active\"} 0.0")
                  .contains(
                      "berth_cluster_queue_nominal_quota{cluster_queue=\"basic-cq\",cohort=\"\",flavor=\"basic-flavor\",resource=\"cpu\"} 5.0")
                  .contains(
                      "berth_cluster_queue_resource_usage{cluster_queue=\"basic-cq\",cohort=\"\",flavor=\"basic-flavor\",resource=\"cpu\"} 4.0")
                  .contains(
                      "berth_quota_reserved_wait_time_seconds_count{cluster_queue=\"basic-cq\"} 3")
                  .contains("berth_admission_cycle_duration_seconds_count")
                  // The JVM's own, to size the heap by (docs/helm.md#memory).
                  .contains("jvm_memory_used_bytes{area=\"heap\"")
                  .contains("jvm_gc_memory_allocated_bytes_total");
            });
    assertThat(http("/healthz")).isEqualTo("ok\n");
    assertThat(http("/readyz")).isEqualTo("ok\n");
  }

  /**
   * A sidecar (an init container with restartPolicy Always) runs beside the main container for the
   * pod's whole life, so its GPUs are held too: 4 + 4 of an 8-GPU quota is the whole quota, and a
   * second such Job waits. Counted as an ordinary init container (the larger, not the sum), both
   * would run on 16 GPUs.
   */
  @Test
  void aSidecarsGpusAreChargedWithTheMainContainers() {
    String ns = "team-sidecar";
    Namespaces.ensure(client, ns);
    client.resource(ScenarioObjects.flavor("sidecar-flavor", Map.of("gpu", "h100"))).create();
    client
        .resource(
            ScenarioObjects.clusterQueue("sidecar-cq", "sidecar-flavor", "nvidia.com/gpu", "8"))
        .create();
    client.resource(ScenarioObjects.localQueue(ns, "gpus", "sidecar-cq")).create();
    Scenario scenario = new Scenario(ns);
    for (String name : List.of("with-sidecar-a", "with-sidecar-b")) {
      Job job =
          dev.berth.testing.Jobs.named(name)
              .in(ns)
              .queue("gpus")
              .limit("nvidia.com/gpu", "4")
              .build();
      job.getSpec()
          .getTemplate()
          .getSpec()
          .setInitContainers(
              List.of(
                  new io.fabric8.kubernetes.api.model.ContainerBuilder()
                      .withName("sidecar")
                      .withImage("busybox")
                      .withRestartPolicy("Always")
                      .withNewResources()
                      .addToLimits(
                          "nvidia.com/gpu", new io.fabric8.kubernetes.api.model.Quantity("4"))
                      .endResources()
                      .build()));
      scenario.submit(job);
    }

    await().atMost(Duration.ofSeconds(30)).until(() -> running(ns, "with-sidecar-a"));
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              Workload waiting = workloadOf(ns, "with-sidecar-b");
              assertThat(waiting.getStatus()).isNotNull();
              assertThat(waiting.getStatus().conditions)
                  .anySatisfy(
                      c -> {
                        assertThat(c.type).isEqualTo("QuotaReserved");
                        assertThat(c.status).isEqualTo("False");
                        assertThat(c.reason).isEqualTo("WaitingForQuota");
                      });
            });
    assertThat(running(ns, "with-sidecar-b")).isFalse();
    Workload admitted = workloadOf(ns, "with-sidecar-a");
    assertThat(
            admitted
                .getStatus()
                .admission
                .podSetAssignments
                .get(0)
                .resourceUsage
                .get("nvidia.com/gpu")
                .toString())
        .isEqualTo("8");
  }

  private static String http(String path) throws Exception {
    var request =
        java.net.http.HttpRequest.newBuilder(
                java.net.URI.create(
                    "http://127.0.0.1:" + RunningOperator.shared().metricsPort() + path))
            .build();
    return java.net.http.HttpClient.newHttpClient()
        .send(request, java.net.http.HttpResponse.BodyHandlers.ofString())
        .body();
  }
}
