package dev.berth.engine;

import static dev.berth.engine.Builders.clusterQueue;
import static dev.berth.engine.Builders.flavor;
import static dev.berth.engine.Builders.localQueue;
import static dev.berth.engine.Builders.workload;
import static dev.berth.engine.model.PendingReason.WaitingForQuota;
import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.engine.model.PendingReason;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The one-pass cycle, its order, and the lifecycle calls the operator makes. */
class AdmissionCycleTest {

  private static Scenario twoQueues(String name) {
    return Scenario.named(name)
        .flavors(flavor("default"))
        .queues(
            clusterQueue("a").cohort("c").flavor("default").res("cpu", "4"),
            clusterQueue("b").cohort("c").flavor("default").res("cpu", "4"))
        .localQueues(localQueue("la", "a"), localQueue("lb", "b"));
  }

  private static Builders.WorkloadBuilder[] deepQueue(int n) {
    Builders.WorkloadBuilder[] out = new Builders.WorkloadBuilder[n];
    for (int i = 0; i < n; i++) {
      out[i] = workload(String.format("w%03d", i)).created(i).podSet("main", 1, "cpu", "1");
    }
    return out;
  }

  static Stream<Scenario> cases() {
    return Stream.of(
        Scenario.named("a deep queue is admitted in one pass, in FIFO order")
            .flavors(flavor("default"))
            .queues(clusterQueue("cq").flavor("default").res("cpu", "50"))
            .pending(deepQueue(80))
            .check(
                o -> {
                  assertThat(o.admissions()).hasSize(50);
                  assertThat(o.names().get(0)).isEqualTo("w000");
                  assertThat(o.names().get(49)).isEqualTo("w049");
                  assertThat(o.engine().status().pendingStatus("w050").reason())
                      .isEqualTo(WaitingForQuota);
                }),
        twoQueues("entries that do not borrow go before those that borrow")
            .pending(
                workload("borrower").queue("la").priority(100).podSet("main", 1, "cpu", "6"),
                workload("local").queue("lb").priority(1).podSet("main", 1, "cpu", "4"))
            .admitsInOrder("local")
            .pendingWith("borrower", WaitingForQuota, "needs cpu 6 on flavor default; 4 available"),
        twoQueues("across queues higher priority goes first")
            .pending(
                workload("a1").queue("la").priority(5).podSet("main", 1, "cpu", "1"),
                workload("b1").queue("lb").priority(10).podSet("main", 1, "cpu", "1"))
            .admitsInOrder("b1", "a1"),
        twoQueues("across queues equal priority goes FIFO")
            .pending(
                workload("a1").queue("la").created(7).podSet("main", 1, "cpu", "1"),
                workload("b1").queue("lb").created(3).podSet("main", 1, "cpu", "1"))
            .admitsInOrder("b1", "a1"),
        twoQueues("every queue drains in the same cycle")
            .pending(
                workload("a1").queue("la").podSet("main", 1, "cpu", "4"),
                workload("a2").queue("la").created(1).podSet("main", 1, "cpu", "1"),
                workload("b1").queue("lb").podSet("main", 1, "cpu", "2"),
                workload("b2").queue("lb").created(1).podSet("main", 1, "cpu", "1"))
            .admitsInOrder("a1", "b1", "b2", "a2")
            .borrows("a2", "cpu", "1"),
        twoQueues("borrowing entries are ordered by priority among themselves")
            .running(workload("r").queue("lb").podSet("main", 1, "cpu", "1"), "b", "default")
            .pending(
                workload("x").queue("la").priority(1).podSet("main", 1, "cpu", "5"),
                workload("y").queue("la").priority(9).podSet("main", 1, "cpu", "6"))
            .admitsInOrder("y")
            .pendingWith("x", WaitingForQuota, "needs cpu 5"),
        Scenario.named("a finished workload releases its quota")
            .flavors(flavor("default"))
            .queues(clusterQueue("cq").flavor("default").res("cpu", "4"))
            .running(workload("r").podSet("main", 1, "cpu", "4"), "cq", "default")
            .then(e -> e.workloadFinished("r"))
            .usage("cq", "default", "cpu", "0"),
        Scenario.named("rollback releases quota and requeues at the same place")
            .flavors(flavor("default"))
            .queues(clusterQueue("cq").flavor("default").res("cpu", "4"))
            .pending(
                workload("a").created(1).podSet("main", 1, "cpu", "4"),
                workload("b").created(2).podSet("main", 1, "cpu", "4"))
            .then(
                e -> {
                  assertThat(e.rollback(e.admission("a").orElseThrow())).isTrue();
                  assertThat(e.status().queuePositions("cq"))
                      .containsEntry("a", 0)
                      .containsEntry("b", 1);
                  assertThat(e.status().usage("cq", "default", "cpu")).isZero();
                })
            .admitsInOrder("a", "a"),
        Scenario.named("restart: recorded admissions count before anything new is admitted")
            .flavors(flavor("default"))
            .queues(clusterQueue("cq").flavor("default").res("cpu", "4"))
            .running(workload("r").podSet("main", 3, "cpu", "1"), "cq", "default")
            .pending(workload("w").podSet("main", 1, "cpu", "2"))
            .admits()
            .pendingWith(
                "w",
                WaitingForQuota,
                "needs cpu 2 on flavor default; 1 available: nominal 4, in use 3"),
        Scenario.named("an evicted workload is requeued with the eviction time")
            .flavors(flavor("default"))
            .queues(clusterQueue("cq").flavor("default").res("cpu", "4"))
            .running(workload("r").created(0).podSet("main", 1, "cpu", "4"), "cq", "default")
            .pending(workload("w").created(500).podSet("main", 1, "cpu", "4"))
            .then(e -> e.workloadEvicted("r", 900))
            .admits("w")
            .check(o -> assertThat(o.engine().status().queuePositions("cq")).containsEntry("r", 0)),
        Scenario.named("deleting a pending workload removes it")
            .flavors(flavor("default"))
            .queues(clusterQueue("cq").flavor("default").res("cpu", "4"))
            .running(workload("r").podSet("main", 1, "cpu", "4"), "cq", "default")
            .pending(workload("w").podSet("main", 1, "cpu", "1"))
            .then(e -> e.removeWorkload("w"))
            .check(o -> assertThat(o.engine().isPending("w")).isFalse()),
        Scenario.named("queue positions follow priority, then timestamp")
            .flavors(flavor("default"))
            .queues(clusterQueue("cq").flavor("default").res("cpu", "0"))
            .pending(
                workload("a").priority(1).created(1).podSet("main", 1, "cpu", "1"),
                workload("b").priority(5).created(9).podSet("main", 1, "cpu", "1"),
                workload("c").priority(1).created(0).podSet("main", 1, "cpu", "1"))
            .check(
                o ->
                    assertThat(o.engine().status().queuePositions("cq").keySet())
                        .containsExactly("b", "c", "a")),
        twoQueues("counts per ClusterQueue and LocalQueue")
            .running(workload("r").queue("la").podSet("main", 1, "cpu", "1"), "a", "default")
            .pending(
                workload("p").queue("la").podSet("main", 1, "cpu", "9"),
                workload("q").queue("la").podSet("main", 1, "cpu", "1"))
            .check(
                o -> {
                  assertThat(o.engine().status().clusterQueueCounts("a"))
                      .isEqualTo(new QueueCounts(0, 1, 2, 2));
                  assertThat(o.engine().status().localQueueCounts("default", "la"))
                      .isEqualTo(new QueueCounts(0, 1, 2, 2));
                  assertThat(o.engine().status().usage("a"))
                      .containsExactly(new FlavorUsage("default", "cpu", 4000, 2000, 0));
                }),
        twoQueues("usage reports what a queue borrows")
            .pending(workload("w").queue("la").podSet("main", 1, "cpu", "6"))
            .check(
                o ->
                    assertThat(o.engine().status().usage("a"))
                        .containsExactly(new FlavorUsage("default", "cpu", 4000, 6000, 2000))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void cycle(Scenario scenario) {
    scenario.run();
  }

  @Test
  void parkedWorkloadsCostNothingUntilAnEventInTheirTree() {
    AdmissionEngine e = new AdmissionEngine();
    e.upsertResourceFlavor(flavor("default").build());
    e.upsertClusterQueue(clusterQueue("a").cohort("x").flavor("default").res("cpu", "1").build());
    e.upsertClusterQueue(clusterQueue("b").cohort("y").flavor("default").res("cpu", "1").build());
    e.upsertNamespace("default", java.util.Map.of());
    e.upsertLocalQueue(localQueue("la", "a"));
    e.upsertLocalQueue(localQueue("lb", "b"));
    for (int i = 0; i < 100; i++) {
      e.upsertWorkload(
          workload("big" + i).queue("la").created(i).podSet("main", 1, "cpu", "2").build());
    }
    e.upsertWorkload(workload("other").queue("lb").podSet("main", 1, "cpu", "1").build());
    CycleResult first = e.runCycle(1);
    assertThat(first.admissions()).extracting(Admission::name).containsExactly("other");
    assertThat(first.evaluations())
        .as("one evaluation decides the whole bucket")
        .isLessThanOrEqualTo(3);
    assertThat(first.pendingReasons()).hasSize(100);
    assertThat(e.runCycle(2).evaluations()).isZero();
    e.workloadFinished("other");
    assertThat(e.runCycle(3).evaluations())
        .as("an event in another cohort wakes nothing here")
        .isZero();
    e.upsertClusterQueue(clusterQueue("a").cohort("x").flavor("default").res("cpu", "2").build());
    assertThat(e.runCycle(4).admissions()).extracting(Admission::name).containsExactly("big0");
  }

  @Test
  void aCycleWithoutReasonsDecidesAlikeAndTheEngineStillExplainsItsPendingWorkloads() {
    AdmissionEngine explained = engineWithAHundredTooBig();
    AdmissionEngine unexplained = engineWithAHundredTooBig();

    CycleResult with = explained.runCycle(1, true);
    CycleResult without = unexplained.runCycle(1, false);

    assertThat(without.admissions()).isEqualTo(with.admissions());
    assertThat(with.pendingReasons()).hasSize(100);
    assertThat(without.pendingReasons()).isEmpty();
    // What the sweep reads (PendingConditions) is the same either way.
    assertThat(unexplained.status().pendingStatuses())
        .extracting(PendingStatus::workloadUid, PendingStatus::summary)
        .containsExactlyInAnyOrderElementsOf(
            explained.status().pendingStatuses().stream()
                .map(p -> org.assertj.core.groups.Tuple.tuple(p.workloadUid(), p.summary()))
                .toList());
    assertThat(unexplained.status().pendingStatuses()).hasSize(100);
  }

  private static AdmissionEngine engineWithAHundredTooBig() {
    AdmissionEngine e = new AdmissionEngine();
    e.upsertResourceFlavor(flavor("default").build());
    e.upsertClusterQueue(clusterQueue("a").flavor("default").res("cpu", "1").build());
    e.upsertNamespace("default", java.util.Map.of());
    e.upsertLocalQueue(localQueue("la", "a"));
    for (int i = 0; i < 100; i++) {
      e.upsertWorkload(
          workload("big" + i).queue("la").created(i).podSet("main", 1, "cpu", "2").build());
    }
    e.upsertWorkload(
        workload("fits").queue("la").created(200).podSet("main", 1, "cpu", "1").build());
    return e;
  }

  @Test
  void sameInputsGiveSameDecisions() {
    List<List<String>> runs = new ArrayList<>();
    for (int run = 0; run < 2; run++) {
      AdmissionEngine e = new AdmissionEngine();
      e.upsertResourceFlavor(flavor("default").build());
      e.upsertClusterQueue(clusterQueue("a").cohort("c").flavor("default").res("cpu", "3").build());
      e.upsertClusterQueue(clusterQueue("b").cohort("c").flavor("default").res("cpu", "3").build());
      e.upsertNamespace("default", java.util.Map.of());
      e.upsertLocalQueue(localQueue("la", "a"));
      e.upsertLocalQueue(localQueue("lb", "b"));
      for (int i = 0; i < 20; i++) {
        e.upsertWorkload(
            workload("w" + i)
                .queue(i % 2 == 0 ? "la" : "lb")
                .priority(i % 3)
                .podSet("main", 1, "cpu", Integer.toString(1 + i % 2))
                .build());
      }
      runs.add(e.runCycle(0).admissions().stream().map(Admission::name).toList());
    }
    assertThat(runs.get(0)).isEqualTo(runs.get(1)).isNotEmpty();
  }

  @Test
  void aCycleResultIsAValueThatLaterEngineCallsDoNotChange() {
    AdmissionEngine e = new AdmissionEngine();
    e.upsertResourceFlavor(flavor("default").build());
    e.upsertClusterQueue(clusterQueue("a").flavor("default").res("cpu", "1").build());
    e.upsertNamespace("default", java.util.Map.of());
    e.upsertLocalQueue(localQueue("la", "a"));
    e.upsertWorkload(workload("head").queue("la").podSet("main", 1, "cpu", "2").build());
    e.upsertWorkload(workload("next").queue("la").created(1).podSet("main", 1, "cpu", "2").build());
    CycleResult result = e.runCycle(1);
    java.util.Map<String, PendingStatus> asDecided = java.util.Map.copyOf(result.pendingReasons());
    assertThat(asDecided).containsOnlyKeys("head", "next");
    assertThat(asDecided.get("next").reason()).isEqualTo(PendingReason.ExceedsMaxQuota);

    e.removeWorkload("head");
    e.upsertClusterQueue(clusterQueue("a").flavor("default").res("cpu", "4").build());
    e.runCycle(2);

    assertThat(result.pendingReasons()).isEqualTo(asDecided);
    assertThat(result.admissions()).isEmpty();
  }
}
