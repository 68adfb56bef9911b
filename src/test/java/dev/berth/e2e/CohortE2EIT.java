package dev.berth.e2e;

import static dev.berth.testing.Quota.cpu;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.api.v1beta1.ClusterQueue;
import dev.berth.testing.ClusterQueues;
import dev.berth.testing.Cohorts;
import dev.berth.testing.Jobs;
import dev.berth.testing.LocalQueues;
import dev.berth.testing.ResourceFlavors;
import java.time.Duration;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Borrowing and lending between ClusterQueues of one cohort. */
class CohortE2EIT {

  private static long running(Scenario s, int jobs) {
    return IntStream.range(0, jobs).filter(i -> s.running("job-" + i)).count();
  }

  @Test
  void borrowsUpToItsBorrowingLimitAndNeverPast() {
    Scenario s = new Scenario("borrowing");
    s.client.resource(ResourceFlavors.named("borrowing-flavor").build()).create();
    s.client
        .resource(
            ClusterQueues.named("borrowing-a")
                .cohort("borrowing")
                .flavor("borrowing-flavor", cpu("4").borrowingLimit("2"))
                .build())
        .create();
    s.client
        .resource(
            ClusterQueues.named("borrowing-b")
                .cohort("borrowing")
                .flavor("borrowing-flavor", cpu("4"))
                .build())
        .create();
    s.client
        .resource(LocalQueues.named("lq").in(s.namespace).clusterQueue("borrowing-a").build())
        .create();
    for (int i = 0; i < 8; i++) {
      s.client
          .resource(Jobs.named("job-" + i).in(s.namespace).queue("lq").request("cpu", "1").build())
          .create();
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
    s.client.resource(ResourceFlavors.named("lending-flavor").build()).create();
    s.client
        .resource(
            ClusterQueues.named("lending-lender")
                .cohort("lending")
                .flavor("lending-flavor", cpu("4").lendingLimit("1"))
                .build())
        .create();
    s.client
        .resource(
            ClusterQueues.named("lending-borrower")
                .cohort("lending")
                .flavor("lending-flavor", cpu("2"))
                .build())
        .create();
    s.client
        .resource(LocalQueues.named("lq").in(s.namespace).clusterQueue("lending-borrower").build())
        .create();
    for (int i = 0; i < 5; i++) {
      s.client
          .resource(Jobs.named("job-" + i).in(s.namespace).queue("lq").request("cpu", "1").build())
          .create();
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
      s.client.resource(Cohorts.named(pair[0]).parent(pair[1]).build()).create();
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
