package dev.berth.engine;

import static dev.berth.engine.Builders.clusterQueue;
import static dev.berth.engine.Builders.cohort;
import static dev.berth.engine.Builders.flavor;
import static dev.berth.engine.Builders.localQueue;
import static dev.berth.engine.Builders.workload;
import static dev.berth.engine.model.PendingReason.ExceedsMaxQuota;
import static dev.berth.engine.model.PendingReason.Inadmissible;
import static dev.berth.engine.model.PendingReason.WaitingForQuota;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Nominal quota, borrowing and lending limits, cohort trees and cycles. */
class QuotaArithmeticTest {

  static Stream<Scenario> cases() {
    return Stream.of(
        Scenario.named("fits within nominal quota")
            .flavors(flavor("default"))
            .queues(clusterQueue("cq").flavor("default").res("cpu", "10"))
            .pending(workload("a").podSet("main", 2, "cpu", "2"))
            .admits("a")
            .usage("cq", "default", "cpu", "4"),
        Scenario.named("no cohort means no borrowing")
            .flavors(flavor("default"))
            .queues(clusterQueue("cq").flavor("default").res("cpu", "10"))
            .pending(workload("a").podSet("main", 3, "cpu", "4"))
            .admits()
            .pendingWith(
                "a",
                ExceedsMaxQuota,
                "needs cpu 12 on flavor default; at most 10 could ever be available"),
        Scenario.named("borrows unused quota of the cohort")
            .flavors(flavor("default"))
            .queues(
                clusterQueue("a").cohort("c").flavor("default").res("cpu", "10"),
                clusterQueue("b").cohort("c").flavor("default").res("cpu", "10"))
            .pending(workload("w").podSet("main", 1, "cpu", "15"))
            .admits("w")
            .borrows("w", "cpu", "5"),
        Scenario.named("borrowingLimit caps what a queue may draw")
            .flavors(flavor("default"))
            .queues(
                clusterQueue("a").cohort("c").flavor("default").res("cpu", "10", "2", null),
                clusterQueue("b").cohort("c").flavor("default").res("cpu", "10"))
            .pending(workload("w").podSet("main", 1, "cpu", "15"))
            .admits()
            .pendingWith(
                "w",
                ExceedsMaxQuota,
                "at most 12 could ever be available: nominal 10, borrowing limit 2"),
        Scenario.named("borrowingLimit counts what is already borrowed")
            .flavors(flavor("default"))
            .queues(
                clusterQueue("a").cohort("c").flavor("default").res("cpu", "10", "4", null),
                clusterQueue("b").cohort("c").flavor("default").res("cpu", "10"))
            .running(workload("r").podSet("main", 1, "cpu", "12"), "a", "default")
            .pending(workload("w").podSet("main", 1, "cpu", "3"))
            .admits()
            .pendingWith(
                "w",
                WaitingForQuota,
                "needs cpu 3 on flavor default; 2 available: nominal 10, in use 12"),
        Scenario.named("lendingLimit keeps the rest for the lender")
            .flavors(flavor("default"))
            .queues(
                clusterQueue("a").cohort("c").flavor("default").res("cpu", "10"),
                clusterQueue("b").cohort("c").flavor("default").res("cpu", "10", null, "4"))
            .pending(workload("w").podSet("main", 1, "cpu", "15"))
            .admits()
            .pendingWith("w", ExceedsMaxQuota, "at most 14 could ever be available"),
        Scenario.named("borrowing up to the lendingLimit is allowed")
            .flavors(flavor("default"))
            .queues(
                clusterQueue("a").cohort("c").flavor("default").res("cpu", "10"),
                clusterQueue("b").cohort("c").flavor("default").res("cpu", "10", null, "4"))
            .pending(workload("w").podSet("main", 1, "cpu", "14"))
            .admits("w")
            .borrows("w", "cpu", "4"),
        Scenario.named("the lender keeps its guaranteed quota while others borrow")
            .flavors(flavor("default"))
            .queues(
                clusterQueue("a").cohort("c").flavor("default").res("cpu", "10"),
                clusterQueue("b").cohort("c").flavor("default").res("cpu", "10", null, "4"))
            .localQueues(localQueue("la", "a"), localQueue("lb", "b"))
            .running(workload("r").queue("la").podSet("main", 1, "cpu", "14"), "a", "default")
            .pending(
                workload("fits").queue("lb").podSet("main", 1, "cpu", "6"),
                workload("late").queue("lb").created(5).podSet("main", 1, "cpu", "1"))
            .admits("fits")
            .pendingWith("late", WaitingForQuota, "needs cpu 1 on flavor default; 0 available"),
        Scenario.named("explicit cohort adds its own quota to the pool")
            .flavors(flavor("default"))
            .cohorts(cohort("c").flavor("default").res("cpu", "5"))
            .queues(clusterQueue("a").cohort("c").flavor("default").res("cpu", "10"))
            .pending(workload("w").podSet("main", 1, "cpu", "15"))
            .admits("w")
            .borrows("w", "cpu", "5"),
        Scenario.named("nested cohorts share quota through the root")
            .flavors(flavor("default"))
            .cohorts(cohort("team-a").parent("org"), cohort("team-b").parent("org"))
            .queues(
                clusterQueue("a").cohort("team-a").flavor("default").res("cpu", "10"),
                clusterQueue("b").cohort("team-b").flavor("default").res("cpu", "10"))
            .pending(workload("w").podSet("main", 1, "cpu", "20"))
            .admits("w")
            .borrows("w", "cpu", "10"),
        Scenario.named("a cohort's borrowingLimit towards its parent bounds its queues")
            .flavors(flavor("default"))
            .cohorts(
                cohort("team-a").parent("org").flavor("default").res("cpu", "0", "5", null),
                cohort("team-b").parent("org"))
            .queues(
                clusterQueue("a").cohort("team-a").flavor("default").res("cpu", "10"),
                clusterQueue("b").cohort("team-b").flavor("default").res("cpu", "10"))
            .pending(workload("w").podSet("main", 1, "cpu", "16"))
            .admits()
            .pendingWith("w", ExceedsMaxQuota, "at most 15 could ever be available"),
        Scenario.named("a cohort's lendingLimit keeps quota inside its subtree")
            .flavors(flavor("default"))
            .cohorts(
                cohort("team-a").parent("org").flavor("default").res("cpu", "0", null, "3"),
                cohort("team-b").parent("org"))
            .queues(
                clusterQueue("a").cohort("team-a").flavor("default").res("cpu", "10"),
                clusterQueue("b").cohort("team-b").flavor("default").res("cpu", "10"))
            .localQueues(localQueue("lb", "b"))
            .pending(workload("w").queue("lb").podSet("main", 1, "cpu", "14"))
            .admits()
            .pendingWith("w", ExceedsMaxQuota, "at most 13 could ever be available"),
        Scenario.named("a cohort cycle makes the tree inactive with a message naming the cycle")
            .flavors(flavor("default"))
            .cohorts(cohort("x").parent("y"), cohort("y").parent("x"))
            .queues(clusterQueue("cq").cohort("x").flavor("default").res("cpu", "10"))
            .pending(workload("w").podSet("main", 1, "cpu", "1"))
            .admits()
            .pendingWith("w", Inadmissible, "cohort cycle: x -> y -> x")
            .check(
                o ->
                    assertThat(o.engine().status().cohortInactiveMessage("y"))
                        .contains("cohort cycle")),
        Scenario.named("queues outside the cycle keep admitting")
            .flavors(flavor("default"))
            .cohorts(cohort("x").parent("y"), cohort("y").parent("x"))
            .queues(
                clusterQueue("ok").cohort("fine").flavor("default").res("cpu", "10"),
                clusterQueue("cq").cohort("x").flavor("default").res("cpu", "10"))
            .pending(workload("w").podSet("main", 1, "cpu", "1"))
            .admits("w"),
        Scenario.named("several resources must all fit")
            .flavors(flavor("default"))
            .queues(clusterQueue("cq").flavor("default").res("cpu", "10").res("memory", "4Gi"))
            .pending(workload("w").podSet("main", 2, "cpu", "1", "memory", "3Gi"))
            .admits()
            .pendingWith(
                "w",
                ExceedsMaxQuota,
                "needs memory 6Gi on flavor default; at most 4Gi could ever be available"),
        Scenario.named("message with numbers for a GPU that does not fit yet")
            .flavors(flavor("h100"))
            .queues(
                clusterQueue("train").cohort("ai").flavor("h100").res("nvidia.com/gpu", "16"),
                clusterQueue("infer").cohort("ai").flavor("h100").res("nvidia.com/gpu", "0"))
            .running(workload("r").podSet("main", 10, "nvidia.com/gpu", "1"), "train", "h100")
            .pending(workload("w").podSet("main", 1, "nvidia.com/gpu", "8"))
            .admits()
            .pendingWith(
                "w",
                WaitingForQuota,
                "needs nvidia.com/gpu 8 on flavor h100; 6 available: nominal 16, in use 10, may borrow 0 from cohort ai"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void quota(Scenario scenario) {
    scenario.run();
  }
}
