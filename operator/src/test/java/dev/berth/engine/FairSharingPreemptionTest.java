package dev.berth.engine;

import static dev.berth.engine.Builders.clusterQueue;
import static dev.berth.engine.Builders.cohort;
import static dev.berth.engine.Builders.flavor;
import static dev.berth.engine.Builders.localQueue;
import static dev.berth.engine.Builders.workload;
import static dev.berth.engine.PreemptionReason.InClusterQueue;
import static dev.berth.engine.PreemptionReason.InCohortFairSharing;
import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.engine.model.PreemptionPolicy;
import dev.berth.engine.model.PreemptionPolicy.BorrowWithinCohort;
import dev.berth.engine.model.PreemptionPolicy.ReclaimWithinCohort;
import dev.berth.engine.model.PreemptionPolicy.WithinClusterQueue;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** FairSharingPreemption (LessThanOrEqualToFinalShare) and cohort shares in cohort trees. */
class FairSharingPreemptionTest {

  private static final PreemptionPolicy RECLAIM_ANY =
      new PreemptionPolicy(
          WithinClusterQueue.Never, ReclaimWithinCohort.Any, BorrowWithinCohort.Never, null);

  private static PreemptionPolicy policy(WithinClusterQueue w, ReclaimWithinCohort r) {
    return new PreemptionPolicy(w, r, BorrowWithinCohort.Never, null);
  }

  /**
   * Cohort "c", pool 12 cpu: "a" (2 cpu, the preemptor's queue), "b" (2 cpu) and the idle lender
   * "x" (8 cpu); fair sharing on.
   */
  private static Scenario fs(String name, Builders.QueueBuilder a) {
    return Scenario.named(name)
        .ordering(new FairSharingOrdering())
        .flavors(flavor("default"))
        .queues(
            a.cohort("c").flavor("default").res("cpu", "2"),
            clusterQueue("b").cohort("c").flavor("default").res("cpu", "2"),
            clusterQueue("x").cohort("c").flavor("default").res("cpu", "8"))
        .localQueues(localQueue("la", "a"), localQueue("lb", "b"));
  }

  /** n workloads of 2 cpu named prefix1..prefixN in queue cq, admitted at 10, 20, ... */
  private static Scenario run(Scenario s, String prefix, String cq, int n) {
    for (int i = 1; i <= n; i++) {
      s.running(
          workload(prefix + i).queue("l" + cq).podSet("main", 1, "cpu", "2"),
          cq,
          "default",
          i * 10L);
    }
    return s;
  }

  static Stream<Scenario> cases() {
    return Stream.of(
        run(
                fs(
                    "reclaiming nominal quota takes the newest workload of the borrower",
                    clusterQueue("a").preemption(RECLAIM_ANY)),
                "b",
                "b",
                6)
            .pending(workload("a1").queue("la").podSet("main", 1, "cpu", "2"))
            .preempts("b6", InCohortFairSharing, "a1")
            .evictsExactly("b6"),
        run(
                run(
                    fs(
                        "a borrowing preemptor takes from a queue whose share stays higher",
                        clusterQueue("a").preemption(RECLAIM_ANY)),
                    "a",
                    "a",
                    1),
                "b",
                "b",
                5)
            .pending(workload("p").queue("la").podSet("main", 1, "cpu", "2"))
            .preempts("b5", InCohortFairSharing, "p")
            .evictsExactly("b5")
            .pendingWith(
                "p", dev.berth.engine.model.PendingReason.WaitingForPreemptedWorkloads, "b5"),
        run(
                run(
                    Scenario.named("without fair sharing the same borrowing preemptor only waits")
                        .flavors(flavor("default"))
                        .queues(
                            clusterQueue("a")
                                .preemption(RECLAIM_ANY)
                                .cohort("c")
                                .flavor("default")
                                .res("cpu", "2"),
                            clusterQueue("b").cohort("c").flavor("default").res("cpu", "2"),
                            clusterQueue("x").cohort("c").flavor("default").res("cpu", "8"))
                        .localQueues(localQueue("la", "a"), localQueue("lb", "b")),
                    "a",
                    "a",
                    1),
                "b",
                "b",
                5)
            .pending(workload("p").queue("la").podSet("main", 1, "cpu", "2"))
            .evictsExactly(),
        run(
                run(
                    fs(
                        "no preemption when the preemptor would end above the victim's queue",
                        clusterQueue("a").preemption(RECLAIM_ANY)),
                    "a",
                    "a",
                    3),
                "b",
                "b",
                3)
            .pending(workload("p").queue("la").podSet("main", 1, "cpu", "2"))
            .evictsExactly()
            .check(o -> assertThat(o.engine().status().weightedShare("a")).isEqualTo(333)),
        run(
                run(
                    fs(
                        "equal shares after preemption are allowed (LessThanOrEqualToFinalShare)",
                        clusterQueue("a").preemption(RECLAIM_ANY)),
                    "a",
                    "a",
                    1),
                "b",
                "b",
                5)
            .pending(workload("p").queue("la").podSet("main", 1, "cpu", "4"))
            .preempts("b5", InCohortFairSharing, "p")
            .preempts("b4", InCohortFairSharing, "p")
            .evictsExactly("b5", "b4"),
        run(
                run(
                    fs(
                        "a victim that would leave its queue below the preemptor's share is not taken",
                        clusterQueue("a").preemption(RECLAIM_ANY)),
                    "a",
                    "a",
                    1),
                "b",
                "b",
                5)
            .pending(workload("p").queue("la").podSet("main", 1, "cpu", "6"))
            .evictsExactly(),
        run(
                run(
                    fs(
                        "a weight of 3 lets a queue take what weight 1 would not",
                        clusterQueue("a").weight(3000).preemption(RECLAIM_ANY)),
                    "a",
                    "a",
                    3),
                "b",
                "b",
                3)
            .pending(workload("p").queue("la").podSet("main", 1, "cpu", "2"))
            .preempts("b3", InCohortFairSharing, "p")
            .evictsExactly("b3"),
        run(
                run(
                    fs(
                        "weight 0 never preempts other queues while borrowing",
                        clusterQueue("a").weight(0).preemption(RECLAIM_ANY)),
                    "a",
                    "a",
                    1),
                "b",
                "b",
                5)
            .pending(workload("p").queue("la").podSet("main", 1, "cpu", "2"))
            .evictsExactly(),
        run(
                fs(
                    "reclaimWithinCohort LowerPriority spares equal priorities",
                    clusterQueue("a")
                        .preemption(
                            policy(WithinClusterQueue.Never, ReclaimWithinCohort.LowerPriority))),
                "b",
                "b",
                6)
            .pending(workload("a1").queue("la").podSet("main", 1, "cpu", "2"))
            .evictsExactly(),
        fs(
                "within the victim queue, lowest priority first, then most recently admitted",
                clusterQueue("a").preemption(RECLAIM_ANY))
            .running(
                workload("old-low").queue("lb").priority(0).podSet("main", 1, "cpu", "2"),
                "b",
                "default",
                10)
            .running(
                workload("new-low").queue("lb").priority(0).podSet("main", 1, "cpu", "2"),
                "b",
                "default",
                20)
            .running(
                workload("high").queue("lb").priority(9).podSet("main", 1, "cpu", "8"),
                "b",
                "default",
                30)
            .pending(workload("a1").queue("la").priority(5).podSet("main", 1, "cpu", "2"))
            .evictsExactly("new-low"),
        run(
                fs(
                    "own-queue victims follow withinClusterQueue when the cohort may not be touched",
                    clusterQueue("a")
                        .preemption(
                            policy(WithinClusterQueue.LowerPriority, ReclaimWithinCohort.Never))),
                "b",
                "b",
                5)
            .running(
                workload("a-low").queue("la").priority(0).podSet("main", 1, "cpu", "2"),
                "a",
                "default",
                5)
            .pending(workload("a1").queue("la").priority(5).podSet("main", 1, "cpu", "2"))
            .preempts("a-low", InClusterQueue, "a1")
            .evictsExactly("a-low"),
        run(
                fs(
                    "the preemptor's own queue gives first when its share is the highest",
                    clusterQueue("a")
                        .preemption(
                            policy(WithinClusterQueue.LowerPriority, ReclaimWithinCohort.Any))),
                "b",
                "b",
                2)
            .running(
                workload("a-low").queue("la").priority(0).podSet("main", 1, "cpu", "2"),
                "a",
                "default",
                5)
            .running(
                workload("a-big").queue("la").priority(9).podSet("main", 1, "cpu", "6"),
                "a",
                "default",
                6)
            .pending(workload("a1").queue("la").priority(5).podSet("main", 1, "cpu", "2"))
            .preempts("a-low", InClusterQueue, "a1")
            .evictsExactly("a-low"),
        fs(
                "a victim not needed once a larger one is taken is given back",
                clusterQueue("a").preemption(RECLAIM_ANY))
            .running(
                workload("b-small").queue("lb").priority(0).podSet("main", 1, "cpu", "1"),
                "b",
                "default",
                10)
            .running(
                workload("b-big").queue("lb").priority(1).podSet("main", 1, "cpu", "4"),
                "b",
                "default",
                20)
            .running(
                workload("b-rest").queue("lb").priority(9).podSet("main", 1, "cpu", "7"),
                "b",
                "default",
                30)
            .pending(workload("a1").queue("la").podSet("main", 1, "cpu", "4"))
            .preempts("b-big", InCohortFairSharing, "a1")
            .evictsExactly("b-big"),
        Scenario.named("the victim comes from the queue with the highest share")
            .ordering(new FairSharingOrdering())
            .flavors(flavor("default"))
            .queues(
                clusterQueue("a")
                    .preemption(RECLAIM_ANY)
                    .cohort("c")
                    .flavor("default")
                    .res("cpu", "2"),
                clusterQueue("b").cohort("c").flavor("default").res("cpu", "2"),
                clusterQueue("d").cohort("c").flavor("default").res("cpu", "2"),
                clusterQueue("x").cohort("c").flavor("default").res("cpu", "6"))
            .localQueues(localQueue("la", "a"), localQueue("lb", "b"), localQueue("ld", "d"))
            .running(workload("b1").queue("lb").podSet("main", 1, "cpu", "8"), "b", "default", 10)
            .running(workload("d1").queue("ld").podSet("main", 1, "cpu", "2"), "d", "default", 20)
            .running(workload("d2").queue("ld").podSet("main", 1, "cpu", "2"), "d", "default", 30)
            .pending(workload("a1").queue("la").podSet("main", 1, "cpu", "2"))
            .preempts("b1", InCohortFairSharing, "a1")
            .evictsExactly("b1"),
        nested("a nested cohort's share is what it draws beyond its subtree over its parent's pool")
            .running(workload("a1").queue("la").podSet("main", 1, "cpu", "6"), "a", "default", 10)
            .check(
                o -> {
                  assertThat(o.engine().status().cohortWeightedShare("left")).isEqualTo(250);
                  assertThat(o.engine().status().cohortWeightedShare("right")).isZero();
                  assertThat(o.engine().status().cohortWeightedShare("root")).isZero();
                  assertThat(o.engine().status().cohortWeightedShare("missing")).isZero();
                }),
        nested("in a cohort tree shares are compared below the common cohort")
            .running(workload("a1").queue("la").podSet("main", 1, "cpu", "2"), "a", "default", 10)
            .running(workload("a2").queue("la").podSet("main", 1, "cpu", "2"), "a", "default", 20)
            .running(workload("a3").queue("la").podSet("main", 1, "cpu", "2"), "a", "default", 30)
            .running(workload("a4").queue("la").podSet("main", 1, "cpu", "2"), "a", "default", 40)
            .pending(workload("b1").queue("lb").podSet("main", 1, "cpu", "4"))
            .preempts("a4", InCohortFairSharing, "b1")
            .preempts("a3", InCohortFairSharing, "b1")
            .evictsExactly("a4", "a3")
            .check(
                o -> assertThat(o.engine().status().cohortWeightedShare("left")).isEqualTo(500)));
  }

  /**
   * Root cohort "root" (no quota of its own) with "left" (queue "a", 4 cpu) and "right" ("b", 4
   * cpu).
   */
  private static Scenario nested(String name) {
    return Scenario.named(name)
        .ordering(new FairSharingOrdering())
        .flavors(flavor("default"))
        .cohorts(cohort("left").parent("root"), cohort("right").parent("root"))
        .queues(
            clusterQueue("a").cohort("left").flavor("default").res("cpu", "4"),
            clusterQueue("b")
                .cohort("right")
                .preemption(RECLAIM_ANY)
                .flavor("default")
                .res("cpu", "4"))
        .localQueues(localQueue("la", "a"), localQueue("lb", "b"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void fairSharingPreemption(Scenario scenario) {
    scenario.run();
  }
}
