package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.api.v1beta1.Berth;
import dev.berth.api.v1beta1.Workload;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A Job labelled berth.dev/max-exec-time-seconds is evicted and deactivated when time is up. */
class MaximumExecutionTimeE2EIT {
  @Test
  void aJobThatRunsPastItsMaximumExecutionTimeIsEvictedAndDeactivated() {
    String ns = "team-max-exec";
    Scenario s = new Scenario(ns);
    var client = s.client;
    client.resource(ScenarioObjects.flavor("max-exec-flavor", Map.of("pool", "max-exec"))).create();
    client
        .resource(ScenarioObjects.clusterQueue("max-exec-cq", "max-exec-flavor", "cpu", "4"))
        .create();
    client.resource(ScenarioObjects.localQueue(ns, "main", "max-exec-cq")).create();
    Job job = ScenarioObjects.job(ns, "bounded", "main", 1, "1");
    job.getMetadata().getLabels().put(Berth.MAX_EXEC_TIME_LABEL, "3");
    s.submit(job);
    assertThat(s.workload("bounded").orElseThrow().getSpec().maximumExecutionTimeSeconds)
        .isEqualTo(3);
    s.awaitRunning("bounded");
    Instant started = Instant.now();

    Workload done =
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () -> s.workload("bounded").orElseThrow(),
                wl ->
                    Boolean.FALSE.equals(wl.getSpec().active) && wl.getStatus().admission == null);
    assertThat(Duration.between(started, Instant.now())).isGreaterThan(Duration.ofSeconds(2));
    assertThat(s.running("bounded")).isFalse();
    assertThat(s.condition("bounded", "QuotaReserved").orElseThrow().message)
        .contains("maximum execution time of 3 s; the workload is deactivated");
    assertThat(s.condition("bounded", "Requeued")).isEmpty();
    assertThat(done.getStatus().accumulatedPastExecutionTimeSeconds).isGreaterThanOrEqualTo(3);
    assertThat(client.v1().events().inNamespace(ns).list().getItems())
        .anySatisfy(
            e -> {
              assertThat(e.getReason()).isEqualTo("MaximumExecutionTimeExceeded");
              assertThat(e.getInvolvedObject().getKind()).isEqualTo("Workload");
            })
        .anySatisfy(
            e -> {
              assertThat(e.getReason()).isEqualTo("Evicted");
              assertThat(e.getMessage()).contains("maximum execution time");
            });
    assertThat(s.staysSuspended("bounded")).isTrue();
    // Counted once, with its own reason (the writer's eviction, not the engine's).
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(RunningOperator.shared().registry().scrape())
                    .contains(
                        "berth_evicted_workloads_total{cluster_queue=\"max-exec-cq\","
                            + "reason=\"MaximumExecutionTimeExceeded\"} 1.0"));
  }
}
