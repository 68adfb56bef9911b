package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.api.v1beta1.AdmissionFairSharingStatus;
import dev.berth.api.v1beta1.LocalQueue;
import dev.berth.api.v1beta1.Workload;
import dev.berth.operator.BerthOperator;
import dev.berth.testing.ClusterQueues;
import dev.berth.testing.Quota;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Admission fair sharing on the real API server: one ClusterQueue of 1 cpu with {@code
 * admissionScope.admissionMode: UsageBasedAdmissionFairSharing} and two LocalQueues. "busy" runs a
 * job long enough to build up usage (sampled every second); then its next job and, a second later,
 * one of "quiet" wait; when the running job ends, quiet's is admitted first. The usage is kept in
 * LocalQueue status and survives a restart of the operator.
 */
class AdmissionFairSharingE2EIT {
  private static final String NS = "afs";

  /** A half-life of an hour sampled every second: each second of 1 cpu adds about 0.0002. */
  private static final String SETTINGS =
      "admissionFairSharing: {usageHalfLifeTime: 1h, usageSamplingInterval: 1s}\n";

  @Test
  void theLessUsedLocalQueuesLaterJobGoesFirstAndUsageSurvivesARestart() {
    try (TestApiServer.Cluster cluster = TestApiServer.dedicated()) {
      KubernetesClient client = cluster.client();
      Namespaces.ensure(client, "berth-system");
      Namespaces.ensure(client, NS);
      BerthOperator operator = RunningOperator.startNew(cluster.kubeconfig(), SETTINGS);
      try {
        client.resource(ScenarioObjects.flavor("afs-flavor", Map.of())).create();
        client
            .resource(
                ClusterQueues.named("afs-cq")
                    .flavor("afs-flavor", Quota.quota("cpu", "1"))
                    .usageBasedAdmissionFairSharing()
                    .build())
            .create();
        client.resource(ScenarioObjects.localQueue(NS, "busy", "afs-cq")).create();
        client.resource(ScenarioObjects.localQueue(NS, "quiet", "afs-cq")).create();

        submit(client, "busy-0", "busy");
        await().atMost(Duration.ofSeconds(30)).until(() -> running(client, "busy-0"));
        // About five seconds of 1 cpu.
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> consumedCpu(client, "busy").compareTo(new BigDecimal("0.001")) >= 0);

        submit(client, "busy-1", "busy");
        Instant busyQueued =
            await()
                .atMost(Duration.ofSeconds(30))
                .until(() -> created(client, "busy-1"), t -> t != null);
        // quiet-0 is queued strictly later: by age alone busy-1 would go first.
        await().until(() -> Instant.now().isAfter(busyQueued.plusSeconds(1)));
        submit(client, "quiet-0", "quiet");
        await().atMost(Duration.ofSeconds(30)).until(() -> created(client, "quiet-0") != null);
        assertThat(created(client, "quiet-0")).isAfter(busyQueued);

        Kubelet.complete(client, job(client, "busy-0"));
        await().atMost(Duration.ofSeconds(30)).until(() -> running(client, "quiet-0"));
        assertThat(running(client, "busy-1")).isFalse();
        // The score that ordered them, as a metric: busy's is above quiet's.
        BerthOperator first = operator;
        await()
            .atMost(Duration.ofSeconds(30))
            .untilAsserted(
                () ->
                    assertThat(score(first, "busy"))
                        .isPositive()
                        .isGreaterThan(score(first, "quiet")));

        // Restart: the new operator starts from the stored usage, decayed by the time it was down,
        // not from what runs (a LocalQueue never sampled starts at its running usage, here 0).
        Kubelet.complete(client, job(client, "quiet-0"));
        await().atMost(Duration.ofSeconds(30)).until(() -> running(client, "busy-1"));
        Kubelet.complete(client, job(client, "busy-1"));
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> job(client, "busy-1").getStatus().getCompletionTime() != null);
        operator.close();
        // What the stopped operator last wrote.
        AdmissionFairSharingStatus before = stored(client, "busy");
        assertThat(before.lastUpdate).isNotNull();
        operator = RunningOperator.startNew(cluster.kubeconfig(), SETTINGS);
        Instant stoppedAt = Instant.parse(before.lastUpdate);
        await()
            .atMost(Duration.ofSeconds(60))
            .untilAsserted(
                () -> {
                  AdmissionFairSharingStatus after = stored(client, "busy");
                  assertThat(Instant.parse(after.lastUpdate)).isAfter(stoppedAt);
                  // Not reset: a LocalQueue whose stored usage were lost would start from what it
                  // holds now, nothing.
                  assertThat(after.consumedResources).containsKey("cpu");
                  BigDecimal cpu = after.consumedResources.get("cpu").getNumericalAmount();
                  BigDecimal was = before.consumedResources.get("cpu").getNumericalAmount();
                  assertThat(cpu).isPositive().isLessThanOrEqualTo(was);
                  assertThat(cpu).isGreaterThan(was.multiply(new BigDecimal("0.9")));
                });
      } finally {
        operator.close();
      }
    }
  }

  /** berth_local_queue_admission_fair_sharing_usage of a LocalQueue, or -1 when not exported. */
  private static double score(BerthOperator operator, String lq) throws Exception {
    var request =
        java.net.http.HttpRequest.newBuilder(
                java.net.URI.create("http://127.0.0.1:" + operator.metricsPort() + "/metrics"))
            .build();
    String body =
        java.net.http.HttpClient.newHttpClient()
            .send(request, java.net.http.HttpResponse.BodyHandlers.ofString())
            .body();
    return body.lines()
        .filter(l -> l.startsWith("berth_local_queue_admission_fair_sharing_usage{"))
        .filter(
            l -> l.contains("local_queue=\"" + lq + "\"") && l.contains("cluster_queue=\"afs-cq\""))
        .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
        .findFirst()
        .orElse(-1);
  }

  private static void submit(KubernetesClient client, String name, String queue) {
    client.resource(ScenarioObjects.job(NS, name, queue, 1, "1")).create();
  }

  private static Job job(KubernetesClient client, String name) {
    return client.batch().v1().jobs().inNamespace(NS).withName(name).get();
  }

  private static boolean running(KubernetesClient client, String name) {
    Job j = job(client, name);
    return j != null && Boolean.FALSE.equals(j.getSpec().getSuspend());
  }

  /** When the job's Workload was created (its queue timestamp), or null before it exists. */
  private static Instant created(KubernetesClient client, String job) {
    return client.resources(Workload.class).inNamespace(NS).list().getItems().stream()
        .filter(
            w ->
                w.getMetadata().getOwnerReferences().stream()
                    .anyMatch(o -> o.getName().equals(job)))
        .map(w -> Instant.parse(w.getMetadata().getCreationTimestamp()))
        .findFirst()
        .orElse(null);
  }

  private static AdmissionFairSharingStatus stored(KubernetesClient client, String lq) {
    try {
      LocalQueue q = client.resources(LocalQueue.class).inNamespace(NS).withName(lq).get();
      return q == null || q.getStatus() == null || q.getStatus().fairSharing == null
          ? null
          : q.getStatus().fairSharing.admissionFairSharingStatus;
    } catch (KubernetesClientException e) {
      return null;
    }
  }

  private static BigDecimal consumedCpu(KubernetesClient client, String lq) {
    AdmissionFairSharingStatus s = stored(client, lq);
    return s == null || s.consumedResources == null || !s.consumedResources.containsKey("cpu")
        ? BigDecimal.ZERO
        : s.consumedResources.get("cpu").getNumericalAmount();
  }
}
