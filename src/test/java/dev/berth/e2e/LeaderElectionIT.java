package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.operator.BerthOperator;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Two replicas on one cluster: one holds the Lease and admits; the other waits. On a server of its
 * own, since the shared operator runs without leader election.
 */
class LeaderElectionIT {

  @Test
  void onlyTheLeaseHolderAdmits() {
    try (TestApiServer.Cluster cluster = TestApiServer.dedicated()) {
      var client = cluster.client();
      Namespaces.ensure(client, "berth-system");
      Namespaces.ensure(client, "team");
      BerthOperator first = RunningOperator.startNew(cluster.kubeconfig(), true);
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                Lease lease = client.leases().inNamespace("berth-system").withName("berth-leader").get();
                return lease != null && lease.getSpec().getHolderIdentity() != null;
              });
      BerthOperator second = RunningOperator.startNew(cluster.kubeconfig(), true);
      try {
        client.resource(Objects.flavor("le-flavor", Map.of())).create();
        client.resource(Objects.clusterQueue("le-cq", "le-flavor", "cpu", "1")).create();
        client.resource(Objects.localQueue("team", "lq", "le-cq")).create();
        client.resource(Objects.job("team", "only", "lq", 1, "1")).create();
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    Boolean.FALSE.equals(
                        client.batch().v1().jobs().inNamespace("team").withName("only").get().getSpec().getSuspend()));
        assertThat(first.isAdmitting()).isTrue();
        assertThat(second.isAdmitting()).isFalse();
      } finally {
        second.close();
        first.close();
      }
    }
  }
}
