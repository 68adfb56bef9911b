package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.api.v1beta1.ClusterQueue;
import io.fabric8.kubernetes.api.model.Quantity;
import java.time.Duration;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Borrowing and lending between ClusterQueues of one cohort. */
class CohortE2EIT {

  private static ClusterQueue member(String name, String cohort, String flavor, String nominal) {
    ClusterQueue cq = ScenarioObjects.clusterQueue(name, flavor, "cpu", nominal);
    cq.getSpec().cohortName = cohort;
    return cq;
  }

  private static long running(Scenario s, int jobs) {
    return IntStream.range(0, jobs).filter(i -> s.running("job-" + i)).count();
  }

  @Test
  void borrowsUpToItsBorrowingLimitAndNeverPast() {
    Scenario s = new Scenario("borrowing");
    s.client.resource(ScenarioObjects.flavor("borrowing-flavor", Map.of())).create();
    ClusterQueue borrower = member("borrowing-a", "borrowing", "borrowing-flavor", "4");
    ScenarioObjects.quota(borrower).borrowingLimit = new Quantity("2");
    s.client.resource(borrower).create();
    s.client.resource(member("borrowing-b", "borrowing", "borrowing-flavor", "4")).create();
    s.client.resource(ScenarioObjects.localQueue(s.namespace, "lq", "borrowing-a")).create();
    for (int i = 0; i < 8; i++) {
      s.client.resource(ScenarioObjects.job(s.namespace, "job-" + i, "lq", 1, "1")).create();
    }
    await().atMost(Duration.ofSeconds(30)).until(() -> running(s, 8) == 6);
    // And no more than that, for a while of cycles.
    await()
        .during(Duration.ofSeconds(2))
        .atMost(Duration.ofSeconds(3))
        .until(() -> running(s, 8) == 6);
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              ClusterQueue cq = s.clusterQueue("borrowing-a");
              assertThat(cq.getStatus()).isNotNull();
              var cpu = cq.getStatus().flavorsReservation.get(0).resources.get(0);
              assertThat(cpu.total.toString()).isEqualTo("6");
              assertThat(cpu.borrowed.toString()).isEqualTo("2");
            });
  }

  @Test
  void neverTakesMoreThanTheLenderLends() {
    Scenario s = new Scenario("lending");
    s.client.resource(ScenarioObjects.flavor("lending-flavor", Map.of())).create();
    ClusterQueue lender = member("lending-lender", "lending", "lending-flavor", "4");
    ScenarioObjects.quota(lender).lendingLimit = new Quantity("1");
    s.client.resource(lender).create();
    s.client.resource(member("lending-borrower", "lending", "lending-flavor", "2")).create();
    s.client.resource(ScenarioObjects.localQueue(s.namespace, "lq", "lending-borrower")).create();
    for (int i = 0; i < 5; i++) {
      s.client.resource(ScenarioObjects.job(s.namespace, "job-" + i, "lq", 1, "1")).create();
    }
    await().atMost(Duration.ofSeconds(30)).until(() -> running(s, 5) == 3);
    await()
        .during(Duration.ofSeconds(2))
        .atMost(Duration.ofSeconds(3))
        .until(() -> running(s, 5) == 3);
  }

  @Test
  void aCycleInTheCohortTreeIsReportedOnEveryCohortInIt() {
    Scenario s = new Scenario("cohort-cycle");
    for (String[] pair : new String[][] {{"cycle-a", "cycle-b"}, {"cycle-b", "cycle-a"}}) {
      dev.berth.api.v1beta1.Cohort cohort = new dev.berth.api.v1beta1.Cohort();
      cohort.getMetadata().setName(pair[0]);
      cohort.setSpec(new dev.berth.api.v1beta1.CohortSpec());
      cohort.getSpec().parentName = pair[1];
      s.client.resource(cohort).create();
    }
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              for (String name : new String[] {"cycle-a", "cycle-b"}) {
                var cohort =
                    s.client.resources(dev.berth.api.v1beta1.Cohort.class).withName(name).get();
                assertThat(cohort.getStatus()).as(name).isNotNull();
                var active =
                    cohort.getStatus().conditions.stream()
                        .filter(c -> c.type.equals("Active"))
                        .findFirst()
                        .orElseThrow();
                assertThat(active.status).isEqualTo("False");
                assertThat(active.message).contains("cycle-a").contains("cycle-b");
              }
            });
  }
}
