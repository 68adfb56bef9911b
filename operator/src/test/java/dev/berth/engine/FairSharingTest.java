package dev.berth.engine;

import static dev.berth.engine.Builders.clusterQueue;
import static dev.berth.engine.Builders.flavor;
import static dev.berth.engine.Builders.localQueue;
import static dev.berth.engine.Builders.workload;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Weighted dominant-resource shares (status) and the fair-sharing entry order. */
class FairSharingTest {

  /** Cohort "c" (pool 8 cpu): "a" and "b" with 2 cpu each and the idle lender "x" with 4. */
  private static Scenario cohort(String name, Builders.QueueBuilder a, Builders.QueueBuilder b) {
    return Scenario.named(name)
        .flavors(flavor("default"))
        .queues(
            a.cohort("c").flavor("default").res("cpu", "2"),
            b.cohort("c").flavor("default").res("cpu", "2"),
            clusterQueue("x").cohort("c").flavor("default").res("cpu", "4"))
        .localQueues(localQueue("la", "a"), localQueue("lb", "b"));
  }

  static Stream<Scenario> cases() {
    return Stream.of(
        cohort(
                "the share is what a queue borrows over what its cohort can lend",
                clusterQueue("a"),
                clusterQueue("b"))
            .running(workload("r").queue("la").podSet("main", 1, "cpu", "4"), "a", "default")
            .check(
                o -> {
                  assertThat(o.engine().status().weightedShare("a")).isEqualTo(250);
                  assertThat(o.engine().status().weightedShare("b")).isZero();
                }),
        cohort("a weight divides the share", clusterQueue("a").weight(2000), clusterQueue("b"))
            .running(workload("r").queue("la").podSet("main", 1, "cpu", "4"), "a", "default")
            .check(o -> assertThat(o.engine().status().weightedShare("a")).isEqualTo(125)),
        cohort(
                "weight 0 while borrowing ranks last",
                clusterQueue("a").weight(0),
                clusterQueue("b"))
            .running(workload("r").queue("la").podSet("main", 1, "cpu", "3"), "a", "default")
            .check(
                o -> assertThat(o.engine().status().weightedShare("a")).isEqualTo(Long.MAX_VALUE)),
        cohort(
                "weight 0 without borrowing has share 0",
                clusterQueue("a").weight(0),
                clusterQueue("b"))
            .running(workload("r").queue("la").podSet("main", 1, "cpu", "2"), "a", "default")
            .check(o -> assertThat(o.engine().status().weightedShare("a")).isZero()),
        Scenario.named("the dominant resource decides the share")
            .flavors(flavor("default"))
            .queues(
                clusterQueue("a")
                    .cohort("c")
                    .flavor("default")
                    .res("cpu", "4")
                    .res("nvidia.com/gpu", "2"),
                clusterQueue("b")
                    .cohort("c")
                    .flavor("default")
                    .res("cpu", "4")
                    .res("nvidia.com/gpu", "2"))
            .localQueues(localQueue("la", "a"))
            .running(
                workload("r").queue("la").podSet("main", 1, "cpu", "5", "nvidia.com/gpu", "3"),
                "a",
                "default")
            .check(o -> assertThat(o.engine().status().weightedShare("a")).isEqualTo(250)),
        cohort(
                "without fair sharing priority decides between borrowers",
                clusterQueue("a"),
                clusterQueue("b"))
            .running(workload("ra").queue("la").podSet("main", 1, "cpu", "4"), "a", "default")
            .running(workload("rb").queue("lb").podSet("main", 1, "cpu", "2"), "b", "default")
            .pending(
                workload("a1").queue("la").priority(10).podSet("main", 1, "cpu", "2"),
                workload("b1").queue("lb").priority(0).podSet("main", 1, "cpu", "2"))
            .admits("a1"),
        cohort(
                "with fair sharing the queue with the lower share after admission goes first",
                clusterQueue("a"),
                clusterQueue("b"))
            .ordering(new FairSharingOrdering())
            .running(workload("ra").queue("la").podSet("main", 1, "cpu", "4"), "a", "default")
            .running(workload("rb").queue("lb").podSet("main", 1, "cpu", "2"), "b", "default")
            .pending(
                workload("a1").queue("la").priority(10).podSet("main", 1, "cpu", "2"),
                workload("b1").queue("lb").priority(0).podSet("main", 1, "cpu", "2"))
            .admits("b1"),
        cohort(
                "with fair sharing a heavier weight wins",
                clusterQueue("a").weight(3000),
                clusterQueue("b"))
            .ordering(new FairSharingOrdering())
            .running(workload("ra").queue("la").podSet("main", 1, "cpu", "4"), "a", "default")
            .running(workload("rb").queue("lb").podSet("main", 1, "cpu", "2"), "b", "default")
            .pending(
                workload("a1").queue("la").priority(0).podSet("main", 1, "cpu", "2"),
                workload("b1").queue("lb").priority(10).podSet("main", 1, "cpu", "2"))
            .admits("a1"),
        cohort(
                "with fair sharing equal shares fall back to priority",
                clusterQueue("a"),
                clusterQueue("b"))
            .ordering(new FairSharingOrdering())
            .running(workload("ra").queue("la").podSet("main", 1, "cpu", "3"), "a", "default")
            .running(workload("rb").queue("lb").podSet("main", 1, "cpu", "3"), "b", "default")
            .pending(
                workload("a1").queue("la").priority(0).podSet("main", 1, "cpu", "2"),
                workload("b1").queue("lb").priority(10).podSet("main", 1, "cpu", "2"))
            .admits("b1"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void fairSharing(Scenario scenario) {
    scenario.run();
  }
}
