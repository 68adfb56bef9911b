package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.api.v1beta1.ClusterQueuePreemption;
import dev.berth.api.v1beta1.Cohort;
import dev.berth.operator.BerthOperator;
import dev.berth.testing.ClusterQueues;
import dev.berth.testing.Cohorts;
import dev.berth.testing.Quota;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.Map;
import java.util.stream.IntStream;
import org.awaitility.core.ThrowingRunnable;
import org.junit.jupiter.api.Test;

/**
 * Hierarchical fair sharing on the real API server: the root Cohort "orgs" holds 12 cpu; under it
 * the Cohorts "org-a" (fairSharing.weight 3) and "org-b" (weight 1), each with one team's
 * ClusterQueue that has no quota of its own. Team A takes all 12 cpu; then team B asks for as much.
 * The two orgs converge to their weighted shares, 9 and 3 cpu (both weighted shares 9/12 ÷ 3 = 3/12
 * ÷ 1 = 0.25), and stay there: at 9 against 3 neither side may preempt the other.
 */
class HierarchicalFairSharingE2EIT {

  private static long running(KubernetesClient client, String ns) {
    return client.batch().v1().jobs().inNamespace(ns).list().getItems().stream()
        .filter(j -> Boolean.FALSE.equals(j.getSpec().getSuspend()))
        .count();
  }

  private static Long weightedShare(KubernetesClient client, String cohort) {
    Cohort c = client.resources(Cohort.class).withName(cohort).get();
    return c == null || c.getStatus() == null || c.getStatus().fairSharing == null
        ? null
        : c.getStatus().fairSharing.weightedShare;
  }

  private static void submit(KubernetesClient client, String ns, String prefix, int n) {
    IntStream.range(0, n)
        .forEach(i -> client.resource(ScenarioObjects.job(ns, prefix + i, "lq", 1, "1")).create());
  }

  @Test
  void twoOrgsConvergeToTheirWeightedShares() {
    try (TestApiServer.Cluster cluster = TestApiServer.dedicated()) {
      KubernetesClient client = cluster.client();
      Namespaces.ensure(client, "berth-system");
      Namespaces.ensure(client, "hfs-a");
      Namespaces.ensure(client, "hfs-b");
      BerthOperator operator = RunningOperator.startNew(cluster.kubeconfig(), false, true);
      try {
        client.resource(ScenarioObjects.flavor("hfs-flavor", Map.of())).create();
        client
            .resource(Cohorts.named("orgs").flavor("hfs-flavor", Quota.quota("cpu", "12")).build())
            .create();
        client
            .resource(Cohorts.named("org-a").parent("orgs").fairSharingWeight("3").build())
            .create();
        client
            .resource(Cohorts.named("org-b").parent("orgs").fairSharingWeight("1").build())
            .create();
        for (String team : new String[] {"a", "b"}) {
          client
              .resource(
                  ClusterQueues.named("hfs-team-" + team)
                      .cohort("org-" + team)
                      .flavor("hfs-flavor", Quota.quota("cpu", "0"))
                      .reclaimWithinCohort(ClusterQueuePreemption.ReclaimWithinCohort.Any)
                      .build())
              .create();
          client
              .resource(ScenarioObjects.localQueue("hfs-" + team, "lq", "hfs-team-" + team))
              .create();
        }

        submit(client, "hfs-a", "a-", 12);
        await().atMost(Duration.ofSeconds(60)).until(() -> running(client, "hfs-a") == 12);

        submit(client, "hfs-b", "b-", 12);
        ThrowingRunnable nineAgainstThree =
            () -> {
              assertThat(running(client, "hfs-b")).isEqualTo(3);
              assertThat(running(client, "hfs-a")).isEqualTo(9);
            };
        await().atMost(Duration.ofSeconds(90)).untilAsserted(nineAgainstThree);
        // Settled: no further preemption either way while both orgs keep workloads waiting.
        await()
            .during(Duration.ofSeconds(10))
            .atMost(Duration.ofSeconds(30))
            .untilAsserted(nineAgainstThree);
        // Each org's share is counted at its level with its weight: 750/3 and 250/1 thousandths.
        await()
            .atMost(Duration.ofSeconds(30))
            .untilAsserted(
                () -> {
                  assertThat(weightedShare(client, "org-a")).isEqualTo(250L);
                  assertThat(weightedShare(client, "org-b")).isEqualTo(250L);
                  assertThat(weightedShare(client, "orgs")).isZero();
                });
      } finally {
        operator.close();
      }
    }
  }
}
