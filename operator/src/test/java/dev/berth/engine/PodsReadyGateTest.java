package dev.berth.engine;

import static dev.berth.engine.Builders.clusterQueue;
import static dev.berth.engine.Builders.flavor;
import static dev.berth.engine.Builders.localQueue;
import static dev.berth.engine.Builders.workload;
import static dev.berth.engine.model.PendingReason.WaitingForPodsReady;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** waitForPodsReady blockAdmission: one admission at a time, each waiting for ready pods. */
class PodsReadyGateTest {

  private static Scenario twoQueues(String name) {
    return Scenario.named(name)
        .flavors(flavor("default"))
        .queues(
            clusterQueue("a").flavor("default").res("cpu", "8"),
            clusterQueue("b").flavor("default").res("cpu", "8"))
        .localQueues(localQueue("la", "a"), localQueue("lb", "b"));
  }

  static Stream<Scenario> cases() {
    return Stream.of(
        twoQueues("off: everything that fits is admitted in one cycle")
            .pending(
                workload("x").queue("la").created(1).podSet("main", 1, "cpu", "1"),
                workload("y").queue("la").created(2).podSet("main", 1, "cpu", "1"),
                workload("z").queue("lb").created(3).podSet("main", 1, "cpu", "1"))
            .admits("x", "y", "z"),
        twoQueues("on: one admission a cycle, across ClusterQueues, the rest says why")
            .blockAdmission()
            .pending(
                workload("x").queue("la").created(1).podSet("main", 1, "cpu", "1"),
                workload("y").queue("la").created(2).podSet("main", 1, "cpu", "1"),
                workload("z").queue("lb").created(3).podSet("main", 1, "cpu", "1"))
            .admits("x")
            .pendingWith("z", WaitingForPodsReady, "pods of admitted workload x to be ready"),
        twoQueues("on: nothing more while the admitted one is not ready, whatever happens")
            .blockAdmission()
            .pending(
                workload("x").queue("la").created(1).podSet("main", 1, "cpu", "1"),
                workload("y").queue("lb").created(2).podSet("main", 1, "cpu", "1"))
            .then(
                e ->
                    e.upsertWorkload(
                        workload("late")
                            .queue("lb")
                            .created(3)
                            .podSet("main", 1, "cpu", "1")
                            .build()))
            .then(e -> e.podsReady("y", true))
            .admits("x"),
        twoQueues("on: the next goes once the admitted one's pods are ready, and so on")
            .blockAdmission()
            .pending(
                workload("x").queue("la").created(1).podSet("main", 1, "cpu", "1"),
                workload("y").queue("lb").created(2).podSet("main", 1, "cpu", "1"),
                workload("z").queue("la").created(3).podSet("main", 1, "cpu", "1"))
            .then(e -> e.podsReady("x", true))
            .then(e -> e.podsReady("y", true))
            .admitsInOrder("x", "y", "z"),
        twoQueues("on: a running workload not ready blocks; its release unblocks")
            .blockAdmission()
            .running(workload("r").queue("la").podSet("main", 1, "cpu", "1"), "a", "default")
            .pending(workload("x").queue("lb").podSet("main", 1, "cpu", "1"))
            .then(e -> {})
            .then(e -> e.workloadFinished("r"))
            .admits("x"),
        twoQueues("on: readiness ends with the quota: evicted and admitted again, it blocks again")
            .blockAdmission()
            .pending(workload("x").queue("la").created(1).podSet("main", 1, "cpu", "1"))
            .then(e -> e.podsReady("x", true))
            .then(
                e -> {
                  e.workloadEvicted("x", 10);
                  e.upsertWorkload(
                      workload("y").queue("lb").created(2).podSet("main", 1, "cpu", "1").build());
                })
            .admitsInOrder("x", "y")
            .check(o -> assertThat(o.engine().admissionBlockedBy()).contains("y")),
        twoQueues("on: ready workloads do not block")
            .blockAdmission()
            .running(workload("r").queue("la").podSet("main", 1, "cpu", "1"), "a", "default")
            .then(e -> e.podsReady("r", true))
            .then(
                e ->
                    e.upsertWorkload(
                        workload("x").queue("lb").podSet("main", 1, "cpu", "1").build()))
            .admits("x"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void decides(Scenario scenario) {
    scenario.run();
  }
}
