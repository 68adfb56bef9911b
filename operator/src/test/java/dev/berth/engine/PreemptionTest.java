package dev.berth.engine;

import static dev.berth.engine.Builders.clusterQueue;
import static dev.berth.engine.Builders.cohort;
import static dev.berth.engine.Builders.flavor;
import static dev.berth.engine.Builders.localQueue;
import static dev.berth.engine.Builders.workload;
import static dev.berth.engine.PreemptionReason.InClusterQueue;
import static dev.berth.engine.PreemptionReason.InCohortReclaimWhileBorrowing;
import static dev.berth.engine.PreemptionReason.InCohortReclamation;
import static dev.berth.engine.model.PendingReason.ExceedsMaxQuota;
import static dev.berth.engine.model.PendingReason.WaitingForPreemptedWorkloads;
import static dev.berth.engine.model.PendingReason.WaitingForQuota;
import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.engine.model.FlavorFungibility.Preference;
import dev.berth.engine.model.FlavorFungibility.WhenCanBorrow;
import dev.berth.engine.model.FlavorFungibility.WhenCanPreempt;
import dev.berth.engine.model.PreemptionPolicy;
import dev.berth.engine.model.PreemptionPolicy.BorrowWithinCohort;
import dev.berth.engine.model.PreemptionPolicy.ReclaimWithinCohort;
import dev.berth.engine.model.PreemptionPolicy.WithinClusterQueue;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * ClassicalPreemption: candidates, order, minimal victim sets, reasons, and the wait for release.
 */
class PreemptionTest {

  private static PreemptionPolicy within(WithinClusterQueue w) {
    return new PreemptionPolicy(w, null, null, null);
  }

  private static PreemptionPolicy reclaim(ReclaimWithinCohort r) {
    return new PreemptionPolicy(null, r, null, null);
  }

  private static PreemptionPolicy policy(
      WithinClusterQueue w, ReclaimWithinCohort r, BorrowWithinCohort b, Integer threshold) {
    return new PreemptionPolicy(w, r, b, threshold);
  }

  /**
   * One ClusterQueue "cq" with 4 cpu, running low (priority 1) and mid (priority 5), 2 cpu each.
   */
  private static Scenario oneQueue(String name, PreemptionPolicy p) {
    return Scenario.named(name)
        .flavors(flavor("default"))
        .queues(clusterQueue("cq").preemption(p).flavor("default").res("cpu", "4"))
        .running(
            workload("low").priority(1).created(10).podSet("main", 1, "cpu", "2"),
            "cq",
            "default",
            10)
        .running(
            workload("mid").priority(5).created(20).podSet("main", 1, "cpu", "2"),
            "cq",
            "default",
            20);
  }

  /**
   * Cohort "c": "a" (4 cpu, with the policy, empty) and "b" (4 cpu) running b1 (4 cpu, admitted
   * first) and b2 (2 cpu): b borrows 2 of a's quota.
   */
  private static Scenario reclaimable(String name, PreemptionPolicy p, int bPriority) {
    return Scenario.named(name)
        .flavors(flavor("default"))
        .queues(
            clusterQueue("a").cohort("c").preemption(p).flavor("default").res("cpu", "4"),
            clusterQueue("b").cohort("c").flavor("default").res("cpu", "4"))
        .localQueues(localQueue("la", "a"), localQueue("lb", "b"))
        .running(
            workload("b1").queue("lb").priority(bPriority).podSet("main", 1, "cpu", "4"),
            "b",
            "default",
            10)
        .running(
            workload("b2").queue("lb").priority(bPriority).podSet("main", 1, "cpu", "2"),
            "b",
            "default",
            20);
  }

  /**
   * Cohort "c": "a" (2 cpu, with the policy), "b" (4 cpu) and the idle lender "x" (4 cpu); b runs
   * b1 and b2, 4 cpu each: b borrows 4, so a can get only 2 of the 4 it asks for while borrowing.
   */
  private static Scenario borrowing(String name, PreemptionPolicy p, int bPriority) {
    return Scenario.named(name)
        .flavors(flavor("default"))
        .queues(
            clusterQueue("a").cohort("c").preemption(p).flavor("default").res("cpu", "2"),
            clusterQueue("b").cohort("c").flavor("default").res("cpu", "4"),
            clusterQueue("x").cohort("c").flavor("default").res("cpu", "4"))
        .localQueues(localQueue("la", "a"), localQueue("lb", "b"))
        .running(
            workload("b1").queue("lb").priority(bPriority).podSet("main", 1, "cpu", "4"),
            "b",
            "default",
            10)
        .running(
            workload("b2").queue("lb").priority(bPriority).podSet("main", 1, "cpu", "4"),
            "b",
            "default",
            20);
  }

  /**
   * Cohort "c": "a" and "b" with 2 cpu each and the preemption policy; "x" (0 cpu) borrows all 4.
   */
  private static Scenario twoReclaimers(String name, Builders.WorkloadBuilder... xRunning) {
    PreemptionPolicy p = reclaim(ReclaimWithinCohort.LowerPriority);
    Scenario s =
        Scenario.named(name)
            .flavors(flavor("default"))
            .queues(
                clusterQueue("a").cohort("c").preemption(p).flavor("default").res("cpu", "2"),
                clusterQueue("b").cohort("c").preemption(p).flavor("default").res("cpu", "2"),
                clusterQueue("x").cohort("c").flavor("default").res("cpu", "0"))
            .localQueues(localQueue("la", "a"), localQueue("lb", "b"));
    long t = 10;
    for (Builders.WorkloadBuilder w : xRunning) {
      s.running(w.queue("lx"), "x", "default", t += 10);
    }
    return s;
  }

  static Stream<Scenario> cases() {
    return Stream.concat(
        withinClusterQueue(),
        Stream.concat(inCohort(), Stream.concat(borrowWithinCohort(), lifecycle())));
  }

  static Stream<Scenario> withinClusterQueue() {
    return Stream.of(
        oneQueue(
                "withinClusterQueue Never: a full queue is NoFit, nothing is preempted",
                PreemptionPolicy.NEVER)
            .pending(workload("high").priority(10).podSet("main", 1, "cpu", "2"))
            .evictsExactly()
            .pendingWith("high", WaitingForQuota, "needs cpu 2 on flavor default; 0 available"),
        oneQueue(
                "LowerPriority preempts the lowest priority first",
                within(WithinClusterQueue.LowerPriority))
            .pending(workload("high").priority(10).podSet("main", 1, "cpu", "2"))
            .evictsExactly("low")
            .preempts("low", InClusterQueue, "high")
            .pendingWith(
                "high",
                WaitingForPreemptedWorkloads,
                "waiting for 1 preempted workload(s) to release quota: low"),
        oneQueue(
                "LowerPriority takes as many victims as needed",
                within(WithinClusterQueue.LowerPriority))
            .pending(workload("high").priority(10).podSet("main", 1, "cpu", "4"))
            .evictsExactly("low", "mid")
            .preempts("mid", InClusterQueue, "high"),
        oneQueue(
                "LowerPriority never takes an equal priority",
                within(WithinClusterQueue.LowerPriority))
            .pending(workload("five").priority(5).created(0).podSet("main", 1, "cpu", "4"))
            .evictsExactly()
            .pendingWith(
                "five", WaitingForQuota, "preemption could make room but found no victims"),
        oneQueue(
                "LowerPriority takes only the strictly lower one",
                within(WithinClusterQueue.LowerPriority))
            .pending(workload("five").priority(5).podSet("main", 1, "cpu", "2"))
            .evictsExactly("low"),
        oneQueue(
                "LowerPriority: the lowest priority preempts nobody",
                within(WithinClusterQueue.LowerPriority))
            .pending(workload("one").priority(1).podSet("main", 1, "cpu", "2"))
            .evictsExactly(),
        oneQueue(
                "LowerOrNewerEqualPriority takes a newer workload of equal priority",
                within(WithinClusterQueue.LowerOrNewerEqualPriority))
            .pending(workload("older").priority(5).created(15).podSet("main", 1, "cpu", "4"))
            .evictsExactly("low", "mid")
            .preempts("mid", InClusterQueue, "older"),
        oneQueue(
                "LowerOrNewerEqualPriority does not take an older workload of equal priority",
                within(WithinClusterQueue.LowerOrNewerEqualPriority))
            .pending(workload("newer").priority(5).created(25).podSet("main", 1, "cpu", "4"))
            .evictsExactly(),
        oneQueue(
                "LowerOrNewerEqualPriority still prefers the lower priority",
                within(WithinClusterQueue.LowerOrNewerEqualPriority))
            .pending(workload("older").priority(5).created(15).podSet("main", 1, "cpu", "2"))
            .evictsExactly("low"),
        Scenario.named("among equal priorities the most recently admitted goes first")
            .flavors(flavor("default"))
            .queues(
                clusterQueue("cq")
                    .preemption(within(WithinClusterQueue.LowerPriority))
                    .flavor("default")
                    .res("cpu", "4"))
            .running(
                workload("early").priority(1).podSet("main", 1, "cpu", "2"), "cq", "default", 10)
            .running(
                workload("late").priority(1).podSet("main", 1, "cpu", "2"), "cq", "default", 20)
            .pending(workload("high").priority(10).podSet("main", 1, "cpu", "2"))
            .evictsExactly("late"),
        Scenario.named("a victim that is not needed is given back (minimal set)")
            .flavors(flavor("default"))
            .queues(
                clusterQueue("cq")
                    .preemption(within(WithinClusterQueue.LowerPriority))
                    .flavor("default")
                    .res("cpu", "4"))
            .running(
                workload("small").priority(1).podSet("main", 1, "cpu", "1"), "cq", "default", 30)
            .running(workload("big").priority(2).podSet("main", 1, "cpu", "3"), "cq", "default", 10)
            .pending(workload("high").priority(10).podSet("main", 1, "cpu", "3"))
            .evictsExactly("big"),
        Scenario.named("only workloads on a flavor-resource that needs preemption are candidates")
            .flavors(flavor("default"))
            .queues(
                clusterQueue("cq")
                    .preemption(within(WithinClusterQueue.LowerPriority))
                    .flavor("default")
                    .res("cpu", "8")
                    .res("nvidia.com/gpu", "2"))
            .running(
                workload("gpuJob").priority(1).podSet("main", 1, "cpu", "1", "nvidia.com/gpu", "2"),
                "cq",
                "default",
                10)
            .running(
                workload("cpuOnly").priority(1).podSet("main", 1, "cpu", "6"), "cq", "default", 20)
            .pending(
                workload("high").priority(10).podSet("main", 1, "cpu", "1", "nvidia.com/gpu", "1"))
            .evictsExactly("gpuJob"),
        Scenario.named("a request above the queue's maximum preempts nobody")
            .flavors(flavor("default"))
            .queues(
                clusterQueue("cq")
                    .preemption(within(WithinClusterQueue.LowerPriority))
                    .flavor("default")
                    .res("cpu", "4"))
            .running(workload("low").priority(1).podSet("main", 1, "cpu", "4"), "cq", "default", 10)
            .pending(workload("huge").priority(10).podSet("main", 1, "cpu", "5"))
            .evictsExactly()
            .pendingWith("huge", ExceedsMaxQuota, "needs cpu 5"),
        oneQueue(
                "a workload behind a waiting preemptor waits behind it",
                within(WithinClusterQueue.LowerPriority))
            .pending(
                workload("high").priority(10).podSet("main", 1, "cpu", "2"),
                workload("next").priority(0).created(5).podSet("main", 1, "cpu", "1"))
            .evictsExactly("low")
            .pendingWith(
                "next",
                WaitingForQuota,
                "waiting behind high, which waits for preempted workloads"),
        Scenario.named("a StrictFIFO preemptor blocks its queue until admitted")
            .flavors(flavor("default"))
            .queues(
                clusterQueue("cq")
                    .strictFifo()
                    .preemption(within(WithinClusterQueue.LowerPriority))
                    .flavor("default")
                    .res("cpu", "4"))
            .running(workload("low").priority(1).podSet("main", 1, "cpu", "3"), "cq", "default", 10)
            .pending(
                workload("high").priority(10).podSet("main", 1, "cpu", "4"),
                workload("tiny").priority(0).created(5).podSet("main", 1, "cpu", "1"))
            .admits()
            .evictsExactly("low"));
  }

  static Stream<Scenario> inCohort() {
    return Stream.of(
        reclaimable(
                "reclaimWithinCohort Never: lent quota is not taken back",
                policy(WithinClusterQueue.LowerPriority, ReclaimWithinCohort.Never, null, null),
                1)
            .pending(workload("w").queue("la").priority(10).podSet("main", 1, "cpu", "4"))
            .evictsExactly()
            .pendingWith("w", WaitingForQuota, "found no victims"),
        reclaimable(
                "reclaimWithinCohort LowerPriority takes back from a lower-priority borrower",
                reclaim(ReclaimWithinCohort.LowerPriority),
                1)
            .pending(workload("w").queue("la").priority(10).podSet("main", 1, "cpu", "4"))
            .evictsExactly("b2")
            .preempts("b2", InCohortReclamation, "w"),
        reclaimable(
                "reclaimWithinCohort LowerPriority leaves an equal-priority borrower",
                reclaim(ReclaimWithinCohort.LowerPriority),
                10)
            .pending(workload("w").queue("la").priority(10).podSet("main", 1, "cpu", "4"))
            .evictsExactly(),
        reclaimable(
                "reclaimWithinCohort Any takes back from a higher-priority borrower",
                reclaim(ReclaimWithinCohort.Any),
                100)
            .pending(workload("w").queue("la").priority(10).podSet("main", 1, "cpu", "4"))
            .evictsExactly("b2")
            .preempts("b2", InCohortReclamation, "w"),
        reclaimable(
                "a reclaiming queue that still fits without preemption preempts nobody",
                reclaim(ReclaimWithinCohort.Any),
                1)
            .pending(workload("w").queue("la").priority(10).podSet("main", 1, "cpu", "2"))
            .admits("w")
            .evictsExactly(),
        reclaimable(
                "the reclaimer is admitted, not borrowing, once the victim is gone",
                reclaim(ReclaimWithinCohort.LowerPriority),
                1)
            .pending(workload("w").queue("la").priority(10).podSet("main", 1, "cpu", "4"))
            .then(e -> e.workloadEvicted("b2", 2))
            .admits("w")
            .borrows("w", "cpu", "0")
            .usage("a", "default", "cpu", "4")
            .usage("b", "default", "cpu", "4"),
        reclaimable("a requeued victim does not reclaim back", reclaim(ReclaimWithinCohort.Any), 1)
            .pending(workload("w").queue("la").priority(10).podSet("main", 1, "cpu", "4"))
            .then(e -> e.workloadEvicted("b2", 2))
            .then(e -> {})
            .admits("w")
            .evictsExactly("b2")
            .pendingWith("b2", WaitingForQuota, "needs cpu 2"),
        Scenario.named("a queue that no longer borrows is not reclaimed from")
            .flavors(flavor("default"))
            .queues(
                clusterQueue("a")
                    .cohort("c")
                    .preemption(reclaim(ReclaimWithinCohort.Any))
                    .flavor("default")
                    .res("cpu", "4"),
                clusterQueue("b").cohort("c").flavor("default").res("cpu", "4"))
            .localQueues(localQueue("la", "a"))
            .running(
                workload("a1").queue("la").priority(20).podSet("main", 1, "cpu", "1"),
                "a",
                "default",
                5)
            .running(
                workload("b1").queue("lb").priority(1).podSet("main", 1, "cpu", "4"),
                "b",
                "default",
                10)
            .running(
                workload("b2").queue("lb").priority(1).podSet("main", 1, "cpu", "2"),
                "b",
                "default",
                20)
            .pending(workload("w").queue("la").priority(10).podSet("main", 1, "cpu", "3"))
            .evictsExactly("b2"),
        Scenario.named("a reclaim that cannot succeed evicts nobody")
            .flavors(flavor("default"))
            .queues(
                clusterQueue("a")
                    .cohort("c")
                    .preemption(reclaim(ReclaimWithinCohort.Any))
                    .flavor("default")
                    .res("cpu", "4"),
                clusterQueue("b").cohort("c").flavor("default").res("cpu", "4"))
            .localQueues(localQueue("la", "a"))
            .running(
                workload("a1").queue("la").priority(20).podSet("main", 1, "cpu", "1"),
                "a",
                "default",
                5)
            .running(
                workload("b1").queue("lb").priority(1).podSet("main", 1, "cpu", "4"),
                "b",
                "default",
                10)
            .running(
                workload("b2").queue("lb").priority(1).podSet("main", 1, "cpu", "2"),
                "b",
                "default",
                20)
            .pending(workload("w").queue("la").priority(10).podSet("main", 1, "cpu", "4"))
            .evictsExactly()
            .pendingWith("w", WaitingForQuota, "found no victims"),
        Scenario.named("other ClusterQueues go before the preemptor's own")
            .flavors(flavor("default"))
            .queues(
                clusterQueue("a")
                    .cohort("c")
                    .preemption(
                        policy(
                            WithinClusterQueue.LowerPriority,
                            ReclaimWithinCohort.LowerPriority,
                            null,
                            null))
                    .flavor("default")
                    .res("cpu", "4"),
                clusterQueue("b").cohort("c").flavor("default").res("cpu", "4"))
            .localQueues(localQueue("la", "a"))
            .running(
                workload("own").queue("la").priority(0).podSet("main", 1, "cpu", "2"),
                "a",
                "default",
                30)
            .running(
                workload("b1").queue("lb").priority(5).podSet("main", 1, "cpu", "4"),
                "b",
                "default",
                10)
            .running(
                workload("b2").queue("lb").priority(5).podSet("main", 1, "cpu", "2"),
                "b",
                "default",
                20)
            .pending(workload("w").queue("la").priority(10).podSet("main", 1, "cpu", "2"))
            .evictsExactly("b2")
            .preempts("b2", InCohortReclamation, "w"),
        Scenario.named("the own queue is used when no other queue borrows")
            .flavors(flavor("default"))
            .queues(
                clusterQueue("a")
                    .cohort("c")
                    .preemption(
                        policy(
                            WithinClusterQueue.LowerPriority, ReclaimWithinCohort.Any, null, null))
                    .flavor("default")
                    .res("cpu", "4"),
                clusterQueue("b").cohort("c").flavor("default").res("cpu", "4"))
            .localQueues(localQueue("la", "a"))
            .running(
                workload("own").queue("la").priority(0).podSet("main", 1, "cpu", "4"),
                "a",
                "default",
                30)
            .running(
                workload("b1").queue("lb").priority(0).podSet("main", 1, "cpu", "4"),
                "b",
                "default",
                10)
            .pending(workload("w").queue("la").priority(10).podSet("main", 1, "cpu", "2"))
            .evictsExactly("own")
            .preempts("own", InClusterQueue, "w"),
        Scenario.named("LowerPriority reclaim skips a higher-priority borrower even if more recent")
            .flavors(flavor("default"))
            .queues(
                clusterQueue("a")
                    .cohort("c")
                    .preemption(reclaim(ReclaimWithinCohort.LowerPriority))
                    .flavor("default")
                    .res("cpu", "4"),
                clusterQueue("b").cohort("c").flavor("default").res("cpu", "4"))
            .localQueues(localQueue("la", "a"))
            .running(
                workload("b1").queue("lb").priority(1).podSet("main", 1, "cpu", "2"),
                "b",
                "default",
                10)
            .running(
                workload("b2").queue("lb").priority(20).podSet("main", 1, "cpu", "2"),
                "b",
                "default",
                20)
            .running(
                workload("b3").queue("lb").priority(20).podSet("main", 1, "cpu", "2"),
                "b",
                "default",
                30)
            .running(
                workload("a1").queue("la").priority(20).podSet("main", 1, "cpu", "2"),
                "a",
                "default",
                5)
            .pending(workload("w").queue("la").priority(10).podSet("main", 1, "cpu", "2"))
            .evictsExactly("b1"),
        Scenario.named("several small borrowers: only as many as needed, most recent first")
            .flavors(flavor("default"))
            .queues(
                clusterQueue("a")
                    .cohort("c")
                    .preemption(reclaim(ReclaimWithinCohort.Any))
                    .flavor("default")
                    .res("cpu", "3"),
                clusterQueue("b").cohort("c").flavor("default").res("cpu", "0"))
            .localQueues(localQueue("la", "a"))
            .running(workload("b1").queue("lb").podSet("main", 1, "cpu", "1"), "b", "default", 10)
            .running(workload("b2").queue("lb").podSet("main", 1, "cpu", "1"), "b", "default", 20)
            .running(workload("b3").queue("lb").podSet("main", 1, "cpu", "1"), "b", "default", 30)
            .pending(workload("w").queue("la").priority(10).podSet("main", 1, "cpu", "2"))
            .evictsExactly("b3", "b2"),
        Scenario.named("reclamation across a cohort tree")
            .flavors(flavor("default"))
            .cohorts(cohort("c1").parent("root"), cohort("c2").parent("root"))
            .queues(
                clusterQueue("a")
                    .cohort("c1")
                    .preemption(reclaim(ReclaimWithinCohort.LowerPriority))
                    .flavor("default")
                    .res("cpu", "4"),
                clusterQueue("b").cohort("c2").flavor("default").res("cpu", "0"))
            .localQueues(localQueue("la", "a"))
            .running(
                workload("b1").queue("lb").priority(1).podSet("main", 1, "cpu", "4"),
                "b",
                "default",
                10)
            .pending(workload("w").queue("la").priority(10).podSet("main", 1, "cpu", "2"))
            .evictsExactly("b1")
            .preempts("b1", InCohortReclamation, "w"),
        Scenario.named("reclamation of lendable quota with a lendingLimit")
            .flavors(flavor("default"))
            .queues(
                clusterQueue("a")
                    .cohort("c")
                    .preemption(reclaim(ReclaimWithinCohort.LowerPriority))
                    .flavor("default")
                    .res("cpu", "4", null, "2"),
                clusterQueue("b").cohort("c").flavor("default").res("cpu", "0"))
            .localQueues(localQueue("la", "a"))
            .running(
                workload("b1").queue("lb").priority(1).podSet("main", 1, "cpu", "2"),
                "b",
                "default",
                10)
            .pending(workload("w").queue("la").priority(10).podSet("main", 1, "cpu", "4"))
            .evictsExactly("b1"),
        twoReclaimers(
                "two preemptors in one cycle never share a victim",
                workload("x1").priority(1).podSet("main", 1, "cpu", "4"))
            .pending(
                workload("wa").queue("la").priority(10).podSet("main", 1, "cpu", "2"),
                workload("wb").queue("lb").priority(9).podSet("main", 1, "cpu", "2"))
            .evictsExactly("x1")
            .preempts("x1", InCohortReclamation, "wa")
            .check(
                o ->
                    assertThat(o.engine().status().pendingStatus("wb").message())
                        .doesNotContain("x1")),
        twoReclaimers(
                "two preemptors in one cycle get distinct victims",
                workload("x1").priority(1).podSet("main", 1, "cpu", "2"),
                workload("x2").priority(1).podSet("main", 1, "cpu", "2"))
            .pending(
                workload("wa").queue("la").priority(10).podSet("main", 1, "cpu", "2"),
                workload("wb").queue("lb").priority(9).podSet("main", 1, "cpu", "2"))
            .evictsExactly("x1", "x2")
            .preempts("x2", InCohortReclamation, "wa")
            .preempts("x1", InCohortReclamation, "wb"),
        twoReclaimers(
                "both preemptors are admitted once the shared victim is gone",
                workload("x1").priority(1).podSet("main", 1, "cpu", "4"))
            .pending(
                workload("wa").queue("la").priority(10).podSet("main", 1, "cpu", "2"),
                workload("wb").queue("lb").priority(9).podSet("main", 1, "cpu", "2"))
            .then(e -> e.workloadEvicted("x1", 2))
            .admitsInOrder("wa", "wb")
            .evictsExactly("x1"));
  }

  static Stream<Scenario> borrowWithinCohort() {
    return Stream.of(
        borrowing(
                "without borrowWithinCohort a preemptor that would borrow reclaims nothing",
                reclaim(ReclaimWithinCohort.Any),
                1)
            .pending(workload("w").queue("la").priority(10).podSet("main", 1, "cpu", "4"))
            .evictsExactly()
            .pendingWith("w", WaitingForQuota, "needs cpu 4"),
        borrowing(
                "borrowWithinCohort LowerPriority preempts a lower-priority borrower while borrowing",
                policy(null, ReclaimWithinCohort.Any, BorrowWithinCohort.LowerPriority, null),
                1)
            .pending(workload("w").queue("la").priority(10).podSet("main", 1, "cpu", "4"))
            .evictsExactly("b2")
            .preempts("b2", InCohortReclaimWhileBorrowing, "w"),
        borrowing(
                "borrowWithinCohort never takes an equal priority",
                policy(null, ReclaimWithinCohort.Any, BorrowWithinCohort.LowerPriority, null),
                10)
            .pending(workload("w").queue("la").priority(10).podSet("main", 1, "cpu", "4"))
            .evictsExactly(),
        borrowing(
                "borrowWithinCohort respects maxPriorityThreshold",
                policy(null, ReclaimWithinCohort.Any, BorrowWithinCohort.LowerPriority, 0),
                1)
            .pending(workload("w").queue("la").priority(10).podSet("main", 1, "cpu", "4"))
            .evictsExactly(),
        borrowing(
                "borrowWithinCohort takes a victim at maxPriorityThreshold",
                policy(null, ReclaimWithinCohort.Any, BorrowWithinCohort.LowerPriority, 1),
                1)
            .pending(workload("w").queue("la").priority(10).podSet("main", 1, "cpu", "4"))
            .evictsExactly("b2"),
        borrowing(
                "the borrowing preemptor is admitted borrowing once its victim is gone",
                policy(
                    null,
                    ReclaimWithinCohort.LowerPriority,
                    BorrowWithinCohort.LowerPriority,
                    null),
                1)
            .pending(workload("w").queue("la").priority(10).podSet("main", 1, "cpu", "4"))
            .then(e -> e.workloadEvicted("b2", 2))
            .admits("w")
            .borrows("w", "cpu", "2"),
        borrowing(
                "reclaimWithinCohort LowerPriority bounds borrowWithinCohort too",
                policy(
                    null,
                    ReclaimWithinCohort.LowerPriority,
                    BorrowWithinCohort.LowerPriority,
                    null),
                20)
            .pending(workload("w").queue("la").priority(10).podSet("main", 1, "cpu", "4"))
            .evictsExactly(),
        Scenario.named("withinClusterQueue works while the preemptor borrows")
            .flavors(flavor("default"))
            .queues(
                clusterQueue("a")
                    .cohort("c")
                    .preemption(within(WithinClusterQueue.LowerPriority))
                    .flavor("default")
                    .res("cpu", "2"),
                clusterQueue("b").cohort("c").flavor("default").res("cpu", "2"))
            .localQueues(localQueue("la", "a"))
            .running(
                workload("own").queue("la").priority(1).podSet("main", 1, "cpu", "4"),
                "a",
                "default",
                10)
            .pending(workload("w").queue("la").priority(10).podSet("main", 1, "cpu", "3"))
            .check(o -> assertThat(o.evictions()).isEmpty()),
        Scenario.named(
                "flavor fungibility: whenCanPreempt MayStopSearch preempts on the first flavor")
            .flavors(flavor("f1"), flavor("f2"))
            .queues(
                clusterQueue("cq")
                    .preemption(within(WithinClusterQueue.LowerPriority))
                    .fungibility(null, WhenCanPreempt.MayStopSearch, null)
                    .flavor("f1")
                    .res("cpu", "4")
                    .flavor("f2")
                    .res("cpu", "4"))
            .running(workload("low").priority(1).podSet("main", 1, "cpu", "4"), "cq", "f1", 10)
            .pending(workload("w").priority(10).podSet("main", 1, "cpu", "2"))
            .evictsExactly("low")
            .then(e -> e.workloadEvicted("low", 2))
            .assigns("w", "main", "cpu", "f1"),
        Scenario.named(
                "flavor fungibility: whenCanPreempt TryNextFlavor takes a free flavor instead")
            .flavors(flavor("f1"), flavor("f2"))
            .queues(
                clusterQueue("cq")
                    .preemption(within(WithinClusterQueue.LowerPriority))
                    .fungibility(null, WhenCanPreempt.TryNextFlavor, null)
                    .flavor("f1")
                    .res("cpu", "4")
                    .flavor("f2")
                    .res("cpu", "4"))
            .running(workload("low").priority(1).podSet("main", 1, "cpu", "4"), "cq", "f1", 10)
            .pending(workload("w").priority(10).podSet("main", 1, "cpu", "2"))
            .evictsExactly()
            .assigns("w", "main", "cpu", "f2"),
        Scenario.named("flavor fungibility: PreemptionOverBorrowing preempts rather than borrow")
            .flavors(flavor("f1"), flavor("f2"))
            .queues(
                clusterQueue("a")
                    .cohort("c")
                    .preemption(within(WithinClusterQueue.LowerPriority))
                    .fungibility(
                        WhenCanBorrow.TryNextFlavor,
                        WhenCanPreempt.TryNextFlavor,
                        Preference.PreemptionOverBorrowing)
                    .flavor("f1")
                    .res("cpu", "4")
                    .flavor("f2")
                    .res("cpu", "0"),
                clusterQueue("b").cohort("c").flavor("f2").res("cpu", "8"))
            .localQueues(localQueue("la", "a"))
            .running(
                workload("low").queue("la").priority(1).podSet("main", 1, "cpu", "4"),
                "a",
                "f1",
                10)
            .pending(workload("w").queue("la").priority(10).podSet("main", 1, "cpu", "2"))
            .evictsExactly("low")
            .then(e -> e.workloadEvicted("low", 2))
            .assigns("w", "main", "cpu", "f1")
            .borrows("w", "cpu", "0"),
        Scenario.named("flavor fungibility: BorrowingOverPreemption borrows rather than preempt")
            .flavors(flavor("f1"), flavor("f2"))
            .queues(
                clusterQueue("a")
                    .cohort("c")
                    .preemption(within(WithinClusterQueue.LowerPriority))
                    .fungibility(
                        WhenCanBorrow.TryNextFlavor,
                        WhenCanPreempt.TryNextFlavor,
                        Preference.BorrowingOverPreemption)
                    .flavor("f1")
                    .res("cpu", "4")
                    .flavor("f2")
                    .res("cpu", "0"),
                clusterQueue("b").cohort("c").flavor("f2").res("cpu", "8"))
            .localQueues(localQueue("la", "a"))
            .running(
                workload("low").queue("la").priority(1).podSet("main", 1, "cpu", "4"),
                "a",
                "f1",
                10)
            .pending(workload("w").queue("la").priority(10).podSet("main", 1, "cpu", "2"))
            .evictsExactly()
            .assigns("w", "main", "cpu", "f2")
            .borrows("w", "cpu", "2"));
  }

  static Stream<Scenario> lifecycle() {
    PreemptionPolicy lower = within(WithinClusterQueue.LowerPriority);
    return Stream.of(
        oneQueue("an eviction is requested once however many cycles run", lower)
            .pending(workload("high").priority(10).podSet("main", 1, "cpu", "4"))
            .then(e -> {})
            .then(
                e ->
                    e.upsertWorkload(
                        workload("other").priority(0).podSet("main", 1, "cpu", "1").build()))
            .evictsExactly("low", "mid"),
        oneQueue("the preemptor is admitted once all victims are released", lower)
            .pending(workload("high").priority(10).podSet("main", 1, "cpu", "4"))
            .then(e -> e.workloadEvicted("low", 2))
            .then(e -> e.workloadEvicted("mid", 3))
            .admits("high")
            .usage("cq", "default", "cpu", "4"),
        oneQueue("released quota stays reserved while another victim still runs", lower)
            .pending(workload("high").priority(10).podSet("main", 1, "cpu", "4"))
            .then(e -> e.workloadEvicted("low", 2))
            .admits()
            .usage("cq", "default", "cpu", "4")
            .pendingWith("high", WaitingForPreemptedWorkloads, "low, mid")
            .pendingWith("low", WaitingForQuota, "waiting behind high"),
        oneQueue("a newcomer of higher priority does not take the freed quota", lower)
            .pending(workload("high").priority(10).podSet("main", 1, "cpu", "4"))
            .then(e -> e.workloadEvicted("low", 2))
            .then(
                e ->
                    e.upsertWorkload(
                        workload("urgent")
                            .priority(50)
                            .created(3)
                            .podSet("main", 1, "cpu", "2")
                            .build()))
            .then(e -> e.workloadEvicted("mid", 4))
            .admits("high")
            .evictsExactly("low", "mid")
            .pendingWith("urgent", WaitingForQuota, "needs cpu 2"),
        oneQueue("a newcomer that sorts first waits behind the preemptor", lower)
            .pending(workload("high").priority(10).podSet("main", 1, "cpu", "4"))
            .then(e -> e.workloadEvicted("low", 2))
            .then(
                e ->
                    e.upsertWorkload(
                        workload("urgent")
                            .priority(50)
                            .created(3)
                            .podSet("main", 1, "cpu", "2")
                            .build()))
            .admits()
            .pendingWith("high", WaitingForPreemptedWorkloads, "mid")
            .pendingWith(
                "urgent",
                WaitingForQuota,
                "waiting behind high, which waits for preempted workloads"),
        Scenario.named("a newcomer in another queue of the cohort does not take the freed quota")
            .flavors(flavor("default"))
            .queues(
                clusterQueue("a")
                    .cohort("c")
                    .preemption(reclaim(ReclaimWithinCohort.Any))
                    .flavor("default")
                    .res("cpu", "4"),
                clusterQueue("b").cohort("c").flavor("default").res("cpu", "4"))
            .localQueues(localQueue("la", "a"), localQueue("lb", "b"))
            .running(
                workload("b1").queue("lb").priority(1).podSet("main", 1, "cpu", "4"),
                "b",
                "default",
                10)
            .running(
                workload("b2").queue("lb").priority(1).podSet("main", 1, "cpu", "4"),
                "b",
                "default",
                20)
            .pending(workload("w").queue("la").priority(0).podSet("main", 1, "cpu", "4"))
            .then(
                e ->
                    e.upsertWorkload(
                        workload("nb")
                            .queue("lb")
                            .priority(100)
                            .podSet("main", 1, "cpu", "4")
                            .build()))
            .then(e -> e.workloadFinished("b2"))
            .admits("w")
            .evictsExactly("b2")
            .pendingWith("nb", WaitingForQuota, "needs cpu 4"),
        oneQueue("a preemptor deleted while waiting frees the reserved quota", lower)
            .pending(workload("high").priority(10).podSet("main", 1, "cpu", "4"))
            .then(e -> e.workloadEvicted("low", 2))
            .then(e -> e.removeWorkload("high"))
            .admits("low")
            .usage("cq", "default", "cpu", "4"),
        oneQueue("a victim that finishes on its own counts as released", lower)
            .pending(workload("high").priority(10).podSet("main", 1, "cpu", "2"))
            .then(e -> e.workloadFinished("low"))
            .admits("high"),
        oneQueue(
                "an equal-priority victim requeued newer does not preempt back",
                within(WithinClusterQueue.LowerOrNewerEqualPriority))
            .pending(workload("older").priority(5).created(15).podSet("main", 1, "cpu", "2"))
            .then(e -> e.workloadEvicted("mid", 2))
            .check(
                o ->
                    assertThat(o.evictions())
                        .extracting(Eviction::workloadUid)
                        .doesNotContain("older")),
        oneQueue("the eviction states the reason, the preemptor and a message", lower)
            .pending(workload("high").priority(10).podSet("main", 1, "cpu", "2"))
            .check(
                o ->
                    assertThat(o.evictions())
                        .containsExactly(
                            new Eviction(
                                "low",
                                "cq",
                                EvictionReason.Preempted,
                                "preempted to admit high in ClusterQueue cq",
                                InClusterQueue,
                                "high"))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void preemption(Scenario scenario) {
    scenario.run();
  }
}
