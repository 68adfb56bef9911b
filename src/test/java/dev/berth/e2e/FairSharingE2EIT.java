package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.api.v1beta1.ClusterQueue;
import dev.berth.api.v1beta1.ClusterQueuePreemption;
import dev.berth.operator.BerthOperator;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Fair sharing on (BERTH_FAIR_SHARING=true): two teams with no quota of their own share a pool; the
 * team that came second takes back its fair half from the one that borrowed it all.
 */
class FairSharingE2EIT {

  private static ClusterQueue team(String name) {
    ClusterQueue cq = ScenarioObjects.clusterQueue(name, "fair-flavor", "cpu", "0");
    cq.getSpec().cohortName = "fair";
    cq.getSpec().preemption = new ClusterQueuePreemption();
    cq.getSpec().preemption.reclaimWithinCohort = ClusterQueuePreemption.ReclaimWithinCohort.Any;
    return cq;
  }

  private static long running(KubernetesClient client, String ns) {
    return client.batch().v1().jobs().inNamespace(ns).list().getItems().stream()
        .filter(j -> Boolean.FALSE.equals(j.getSpec().getSuspend()))
        .count();
  }

  @Test
  void theLaterTeamTakesBackItsFairShare() {
    try (TestApiServer.Cluster cluster = TestApiServer.dedicated()) {
      KubernetesClient client = cluster.client();
      Namespaces.ensure(client, "berth-system");
      Namespaces.ensure(client, "team-a");
      Namespaces.ensure(client, "team-b");
      BerthOperator operator = RunningOperator.startNew(cluster.kubeconfig(), false, true);
      try {
        client.resource(ScenarioObjects.flavor("fair-flavor", Map.of())).create();
        ClusterQueue pool = ScenarioObjects.clusterQueue("fair-pool", "fair-flavor", "cpu", "6");
        pool.getSpec().cohortName = "fair";
        client.resource(pool).create();
        client.resource(team("fair-a")).create();
        client.resource(team("fair-b")).create();
        client.resource(ScenarioObjects.localQueue("team-a", "lq", "fair-a")).create();
        client.resource(ScenarioObjects.localQueue("team-b", "lq", "fair-b")).create();

        IntStream.range(0, 6)
            .forEach(
                i ->
                    client
                        .resource(ScenarioObjects.job("team-a", "a-" + i, "lq", 1, "1"))
                        .create());
        await().atMost(Duration.ofSeconds(30)).until(() -> running(client, "team-a") == 6);

        IntStream.range(0, 6)
            .forEach(
                i ->
                    client
                        .resource(ScenarioObjects.job("team-b", "b-" + i, "lq", 1, "1"))
                        .create());
        await()
            .atMost(Duration.ofSeconds(60))
            .untilAsserted(
                () -> {
                  assertThat(running(client, "team-b")).isEqualTo(3);
                  assertThat(running(client, "team-a")).isEqualTo(3);
                });
        Job victim =
            client.batch().v1().jobs().inNamespace("team-a").list().getItems().stream()
                .filter(j -> Boolean.TRUE.equals(j.getSpec().getSuspend()))
                .findFirst()
                .orElseThrow();
        var preempted =
            client
                .resources(dev.berth.api.v1beta1.Workload.class)
                .inNamespace("team-a")
                .list()
                .getItems()
                .stream()
                .filter(
                    w ->
                        w.getMetadata()
                            .getOwnerReferences()
                            .get(0)
                            .getName()
                            .equals(victim.getMetadata().getName()))
                .flatMap(w -> w.getStatus().conditions.stream())
                .filter(c -> c.type.equals("Preempted"))
                .findFirst()
                .orElseThrow();
        assertThat(preempted.reason).isEqualTo("InCohortFairSharing");
      } finally {
        operator.close();
      }
    }
  }
}
