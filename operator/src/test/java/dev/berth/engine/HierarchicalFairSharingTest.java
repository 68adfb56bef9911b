package dev.berth.engine;

import static dev.berth.engine.Builders.clusterQueue;
import static dev.berth.engine.Builders.cohort;
import static dev.berth.engine.Builders.flavor;
import static dev.berth.engine.Builders.localQueue;
import static dev.berth.engine.Builders.workload;
import static dev.berth.engine.FairSharingStrategy.LessThanInitialShare;
import static dev.berth.engine.FairSharingStrategy.LessThanOrEqualToFinalShare;
import static dev.berth.engine.PreemptionReason.InCohortFairSharing;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.engine.model.PreemptionPolicy;
import dev.berth.engine.model.PreemptionPolicy.BorrowWithinCohort;
import dev.berth.engine.model.PreemptionPolicy.ReclaimWithinCohort;
import dev.berth.engine.model.PreemptionPolicy.WithinClusterQueue;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Hierarchical fair sharing: a Cohort's weight counts at its level of the tree, against its
 * siblings; both preemption strategies. Shares are in thousandths and worked out by hand in each
 * case's comment.
 */
class HierarchicalFairSharingTest {

  private static final PreemptionPolicy RECLAIM_ANY =
      new PreemptionPolicy(
          WithinClusterQueue.Never, ReclaimWithinCohort.Any, BorrowWithinCohort.Never, null);

  /**
   * Root cohort "r" holds the whole pool, 12 cpu. Under it "org-a" (weight {@code orgA}) with the
   * ClusterQueues "a" and "a2", and "org-b" (weight {@code orgB}) with "b"; no ClusterQueue has
   * quota of its own. Nothing below "r" lends limits, so every node could draw all 12 cpu: the
   * denominator of every share is 12.
   */
  private static Scenario tree(String name, long orgA, long orgB) {
    return Scenario.named(name)
        .ordering(new FairSharingOrdering())
        .flavors(flavor("default"))
        .cohorts(
            cohort("r").flavor("default").res("cpu", "12"),
            cohort("org-a").parent("r").weight(orgA),
            cohort("org-b").parent("r").weight(orgB))
        .queues(
            clusterQueue("a").cohort("org-a").flavor("default").res("cpu", "0"),
            clusterQueue("a2").cohort("org-a").flavor("default").res("cpu", "0"),
            clusterQueue("b")
                .cohort("org-b")
                .preemption(RECLAIM_ANY)
                .flavor("default")
                .res("cpu", "0"))
        .localQueues(localQueue("la", "a"), localQueue("la2", "a2"), localQueue("lb", "b"));
  }

  /**
   * "a", "a2" and "b" run that many 1-cpu workloads (ra1.., ra21.., rb1..), admitted 10 s apart.
   */
  private static Scenario using(Scenario s, int a, int a2, int b) {
    int[] counts = {a, a2, b};
    String[] queues = {"a", "a2", "b"};
    long at = 0;
    for (int q = 0; q < queues.length; q++) {
      for (int i = 1; i <= counts[q]; i++) {
        s.running(
            workload("r" + queues[q] + i).queue("l" + queues[q]).podSet("main", 1, "cpu", "1"),
            queues[q],
            "default",
            at += 10);
      }
    }
    return s;
  }

  /** One pending 1-cpu workload each, in the queue its name starts with ("a21" in "a2"). */
  private static Scenario wanting(Scenario s, String... names) {
    for (String name : names) {
      String queue = name.substring(0, name.length() - 1);
      s.pending(workload(name).queue("l" + queue).podSet("main", 1, "cpu", "1"));
    }
    return s;
  }

  /**
   * Cohort "c": the idle lender "x" (4 cpu), "a" and "b" with none; "a" runs one 4-cpu workload
   * ("big": a's share 4/4 = 1000) and "b" wants 2 cpu (b's share after admission 2/4 = 500).
   * Without "big", a's share is 0: only LessThanInitialShare (500 < 1000) lets b take it.
   */
  private static Scenario oneBigWorkload(String name, List<FairSharingStrategy> strategies) {
    return Scenario.named(name)
        .ordering(new FairSharingOrdering())
        .planner(new FairSharingPreemption(strategies))
        .flavors(flavor("default"))
        .queues(
            clusterQueue("x").cohort("c").flavor("default").res("cpu", "4"),
            clusterQueue("a").cohort("c").flavor("default").res("cpu", "0"),
            clusterQueue("b").cohort("c").preemption(RECLAIM_ANY).flavor("default").res("cpu", "0"))
        .localQueues(localQueue("la", "a"), localQueue("lb", "b"))
        .running(workload("big").queue("la").podSet("main", 1, "cpu", "4"), "a", "default")
        .pending(workload("b1").queue("lb").podSet("main", 1, "cpu", "2"));
  }

  static Stream<Scenario> cases() {
    return Stream.of(
        // org-a draws 6 of 12: 500, weight 3 -> 166; org-b 2 of 12: 166, weight 1 -> 166.
        // "a" in org-a draws 6 of the 12 org-a could get: 500 (its own weight is 1).
        tree("a cohort's weight divides its share at its own level", 3000, 1000)
            .running(workload("ra").queue("la").podSet("main", 1, "cpu", "6"), "a", "default")
            .running(workload("rb").queue("lb").podSet("main", 1, "cpu", "2"), "b", "default")
            .check(
                o -> {
                  var status = o.engine().status();
                  assertThat(status.cohortWeightedShare("org-a")).isEqualTo(166);
                  assertThat(status.cohortWeightedShare("org-b")).isEqualTo(166);
                  assertThat(status.cohortWeightedShare("r")).isZero();
                  assertThat(status.weightedShare("a")).isEqualTo(500);
                  assertThat(status.weightedShare("b")).isEqualTo(166);
                }),
        // 1 cpu free. org-a with a1: 9/12 = 750, /3 = 250; org-b with b1: 4/12 = 333.
        wanting(using(tree("the heavier cohort goes first", 3000, 1000), 8, 0, 3), "a1", "b1")
            .admits("a1"),
        // The same usage with equal weights: 750 against 333.
        wanting(
                using(
                    tree("with equal weights the lighter cohort goes first", 1000, 1000), 8, 0, 3),
                "a1",
                "b1")
            .admits("b1"),
        // 1 cpu free, equal weights. Queue by queue a with a1 (4/12 = 333) is below b with b1
        // (6/12 = 500), but org-a draws for both its queues: with a1 7/12 = 583.
        wanting(
                using(tree("a cohort competes with all its queues' usage", 1000, 1000), 3, 3, 5),
                "a1",
                "b1")
            .admits("b1"),
        // 1 cpu free. Inside org-a: a with a1 6/12 = 500, a2 with a21 3/12 = 250: a21 is org-a's
        // nominee. At the root: org-a with a21 8/12 = 666, /3 = 222; org-b with b1 5/12 = 416.
        wanting(using(tree("each level picks its nominee", 3000, 1000), 5, 2, 4), "a1", "a21", "b1")
            .admits("a21"),
        // org-a holds all 12. org-b with b1 1/12 = 83; org-a without ra12 11/12 = 916, /3 = 305.
        wanting(
                using(tree("the lighter cohort takes back from the heavier", 3000, 1000), 12, 0, 0),
                "b1")
            .preempts("ra12", InCohortFairSharing, "b1")
            .evictsExactly("ra12"),
        // At 9 against 3 the weighted shares are even: org-b with b4 4/12 = 333; org-a without
        // ra9 8/12 = 666, /3 = 222 (final share), with it 750, /3 = 250 (initial share).
        wanting(
                using(tree("at its weighted share a cohort takes nothing", 3000, 1000), 9, 0, 3),
                "b4")
            .evictsExactly(),
        // Equal weights: org-a without ra9 666, so org-b (333 after admission) takes it.
        wanting(using(tree("with equal weights 9 against 3 is unfair", 1000, 1000), 9, 0, 3), "b4")
            .preempts("ra9", InCohortFairSharing, "b4")
            .evictsExactly("ra9"),
        oneBigWorkload(
                "LessThanOrEqualToFinalShare alone keeps the big workload",
                List.of(LessThanOrEqualToFinalShare))
            .evictsExactly(),
        oneBigWorkload("LessThanInitialShare takes the big workload", List.of(LessThanInitialShare))
            .preempts("big", InCohortFairSharing, "b1")
            .evictsExactly("big"),
        oneBigWorkload(
                "the second strategy takes what the first refused",
                FairSharingPreemption.DEFAULT_STRATEGIES)
            .preempts("big", InCohortFairSharing, "b1")
            .evictsExactly("big"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void hierarchicalFairSharing(Scenario scenario) {
    scenario.run();
  }

  /**
   * The loop jqwik found (the shape of Kueue issue 14543), pool 7: cq0 (nominal 2) borrows 3; cq1
   * (nominal 3, weight 1) and cq2 (nominal 2, weight 0, LowerPriority inside) want more. With
   * LessThanInitialShare, cq1's w004 (3 cpu) took cq2's w006 (3 cpu, borrowing 1 at weight 0: share
   * infinite) and left cq2 two cpu under its nominal quota; cq2's w005 reclaimed them from cq1, its
   * w006 preempted w005 by priority and borrowed again, and round it went. A victim may no longer
   * leave its queue under nominal quota the preemptor borrows.
   */
  @Test
  void noPreemptionLoopThroughNominalQuotaThePreemptorBorrows() {
    var queues =
        List.of(
            new PreemptionProperties.QueueConfig(
                2,
                null,
                WithinClusterQueue.Never,
                ReclaimWithinCohort.Never,
                BorrowWithinCohort.Never,
                null),
            new PreemptionProperties.QueueConfig(
                3,
                null,
                WithinClusterQueue.Never,
                ReclaimWithinCohort.LowerPriority,
                BorrowWithinCohort.Never,
                null),
            new PreemptionProperties.QueueConfig(
                2,
                null,
                WithinClusterQueue.LowerPriority,
                ReclaimWithinCohort.Any,
                BorrowWithinCohort.Never,
                null));
    var c =
        new PreemptionProperties.Cluster(
            queues,
            List.of(
                new PreemptionProperties.Job(0, 0, 2),
                new PreemptionProperties.Job(0, 0, 1),
                new PreemptionProperties.Job(0, 0, 2)),
            new AdmissionEngine(new FairSharingOrdering(), new FairSharingPreemption()),
            List.of(0L, 1000L));
    List.of(
            new PreemptionProperties.Job(1, 2, 1),
            new PreemptionProperties.Job(1, 2, 3),
            new PreemptionProperties.Job(2, 0, 2),
            new PreemptionProperties.Job(2, 1, 3))
        .forEach(c::submit);
    List<String> evicted = new java.util.ArrayList<>();
    for (int i = 0; i < 30; i++) {
      CycleResult r = c.engine.runCycle(c.now += 10);
      for (Eviction e : r.evictions()) {
        evicted.add(e.workloadUid());
        c.engine.workloadEvicted(e.workloadUid(), c.now += 1);
      }
    }
    assertThat(evicted).as("each evicted once at most").doesNotHaveDuplicates();
    assertThat(c.engine.runCycle(c.now += 10).evictions()).as("settled").isEmpty();
  }

  @Test
  void onlyTheListsKueueAllowsAreAccepted() {
    assertThat(FairSharingPreemption.allowed(List.of(LessThanInitialShare))).isTrue();
    assertThat(FairSharingPreemption.allowed(FairSharingPreemption.DEFAULT_STRATEGIES)).isTrue();
    assertThat(
            FairSharingPreemption.allowed(
                List.of(LessThanInitialShare, LessThanOrEqualToFinalShare)))
        .isFalse();
    assertThat(FairSharingPreemption.allowed(List.of())).isFalse();
    assertThatThrownBy(
            () ->
                new FairSharingPreemption(
                    List.of(LessThanOrEqualToFinalShare, LessThanOrEqualToFinalShare)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("LessThanOrEqualToFinalShare, LessThanOrEqualToFinalShare");
  }
}
