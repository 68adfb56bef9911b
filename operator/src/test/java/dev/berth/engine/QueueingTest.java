package dev.berth.engine;

import static dev.berth.engine.Builders.clusterQueue;
import static dev.berth.engine.Builders.flavor;
import static dev.berth.engine.Builders.localQueue;
import static dev.berth.engine.Builders.workload;
import static dev.berth.engine.model.PendingReason.Inadmissible;
import static dev.berth.engine.model.PendingReason.WaitingForQuota;
import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.engine.model.LabelSelector;
import dev.berth.engine.model.LabelSelectorRequirement;
import dev.berth.engine.model.StopPolicy;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Queue order, StrictFIFO and BestEffortFIFO, namespaceSelector and stopPolicy. */
class QueueingTest {

  private static Scenario oneQueue(String name, Builders.QueueBuilder cq) {
    return Scenario.named(name)
        .flavors(flavor("default"))
        .queues(cq.flavor("default").res("cpu", "4"));
  }

  private static LabelSelector expression(
      String key, LabelSelectorRequirement.Operator op, String... values) {
    return new LabelSelector(
        Map.of(), List.of(new LabelSelectorRequirement(key, op, List.of(values))));
  }

  static Stream<Scenario> cases() {
    return Stream.of(
        oneQueue("higher priority goes first", clusterQueue("cq"))
            .pending(
                workload("low").priority(1).created(1).podSet("main", 1, "cpu", "4"),
                workload("high").priority(10).created(2).podSet("main", 1, "cpu", "4"))
            .admits("high")
            .pendingWith("low", WaitingForQuota, "needs cpu 4 on flavor default; 0 available"),
        oneQueue("same priority: older queue timestamp goes first", clusterQueue("cq"))
            .pending(
                workload("new").created(20).podSet("main", 1, "cpu", "4"),
                workload("old").created(10).podSet("main", 1, "cpu", "4"))
            .admits("old"),
        oneQueue("same priority and timestamp: UID breaks the tie", clusterQueue("cq"))
            .pending(
                workload("b").podSet("main", 1, "cpu", "4"),
                workload("a").podSet("main", 1, "cpu", "4"))
            .admits("a"),
        oneQueue(
                "StrictFIFO: a head that does not fit blocks the queue",
                clusterQueue("cq").strictFifo())
            .running(workload("r").podSet("main", 1, "cpu", "2"), "cq", "default")
            .pending(
                workload("big").priority(10).podSet("main", 1, "cpu", "3"),
                workload("small").priority(1).podSet("main", 1, "cpu", "1"))
            .admits()
            .pendingWith("big", WaitingForQuota, "needs cpu 3 on flavor default; 2 available")
            .pendingWith(
                "small",
                WaitingForQuota,
                "waiting behind big, the head of StrictFIFO ClusterQueue cq"),
        oneQueue(
                "BestEffortFIFO: a head that does not fit is parked and the next goes",
                clusterQueue("cq"))
            .running(workload("r").podSet("main", 1, "cpu", "2"), "cq", "default")
            .pending(
                workload("big").priority(10).podSet("main", 1, "cpu", "3"),
                workload("small").priority(1).podSet("main", 1, "cpu", "1"))
            .admits("small")
            .pendingWith("big", WaitingForQuota, "needs cpu 3"),
        oneQueue(
                "StrictFIFO head is admitted once quota frees, then the rest",
                clusterQueue("cq").strictFifo())
            .running(workload("r").podSet("main", 1, "cpu", "2"), "cq", "default")
            .pending(
                workload("big").priority(10).podSet("main", 1, "cpu", "3"),
                workload("small").priority(1).podSet("main", 1, "cpu", "1"))
            .then(e -> e.workloadFinished("r"))
            .admitsInOrder("big", "small"),
        oneQueue(
                "a parked workload comes back when a workload of its queue finishes",
                clusterQueue("cq"))
            .running(workload("r").podSet("main", 1, "cpu", "4"), "cq", "default")
            .pending(workload("w").podSet("main", 1, "cpu", "2"))
            .then(e -> e.workloadFinished("r"))
            .admits("w"),
        oneQueue("a parked workload comes back when its ClusterQueue grows", clusterQueue("cq"))
            .running(workload("r").podSet("main", 1, "cpu", "4"), "cq", "default")
            .pending(workload("w").podSet("main", 1, "cpu", "2"))
            .then(
                e ->
                    e.upsertClusterQueue(
                        clusterQueue("cq").flavor("default").res("cpu", "8").build()))
            .admits("w"),
        Scenario.named("a parked workload comes back when a workload of its cohort finishes")
            .flavors(flavor("default"))
            .queues(
                clusterQueue("a").cohort("c").flavor("default").res("cpu", "2"),
                clusterQueue("b").cohort("c").flavor("default").res("cpu", "2"))
            .localQueues(localQueue("la", "a"), localQueue("lb", "b"))
            .running(workload("r").queue("lb").podSet("main", 1, "cpu", "2"), "b", "default")
            .pending(workload("w").queue("la").podSet("main", 1, "cpu", "3"))
            .then(e -> e.workloadFinished("r"))
            .admits("w")
            .borrows("w", "cpu", "1"),
        Scenario.named("namespaceSelector absent matches no namespace")
            .flavors(flavor("default"))
            .queues(clusterQueue("cq").namespaceSelector(null).flavor("default").res("cpu", "4"))
            .pending(workload("w").podSet("main", 1, "cpu", "1"))
            .admits()
            .pendingWith(
                "w",
                Inadmissible,
                "namespace default doesn't match the namespaceSelector of ClusterQueue cq"),
        Scenario.named("namespaceSelector {} matches every namespace")
            .flavors(flavor("default"))
            .queues(
                clusterQueue("cq")
                    .namespaceSelector(LabelSelector.ALL)
                    .flavor("default")
                    .res("cpu", "4"))
            .pending(workload("w").podSet("main", 1, "cpu", "1"))
            .admits("w"),
        Scenario.named("namespaceSelector matchLabels matches the namespace labels")
            .flavors(flavor("default"))
            .queues(
                clusterQueue("cq")
                    .namespaceSelector(new LabelSelector(Map.of("team", "ml"), List.of()))
                    .flavor("default")
                    .res("cpu", "4"))
            .namespace("ml", "team", "ml")
            .localQueues(localQueue("ml", "lq", "cq", StopPolicy.None))
            .pending(workload("w").namespace("ml").podSet("main", 1, "cpu", "1"))
            .admits("w"),
        Scenario.named("namespaceSelector matchLabels mismatch is inadmissible")
            .flavors(flavor("default"))
            .queues(
                clusterQueue("cq")
                    .namespaceSelector(new LabelSelector(Map.of("team", "ml"), List.of()))
                    .flavor("default")
                    .res("cpu", "4"))
            .namespace("web", "team", "web")
            .localQueues(localQueue("web", "lq", "cq", StopPolicy.None))
            .pending(workload("w").namespace("web").podSet("main", 1, "cpu", "1"))
            .admits()
            .pendingWith("w", Inadmissible, "namespace web doesn't match"),
        Scenario.named("namespaceSelector In expression")
            .flavors(flavor("default"))
            .queues(
                clusterQueue("cq")
                    .namespaceSelector(
                        expression("team", LabelSelectorRequirement.Operator.In, "ml", "ai"))
                    .flavor("default")
                    .res("cpu", "4"))
            .namespace("ai", "team", "ai")
            .localQueues(localQueue("ai", "lq", "cq", StopPolicy.None))
            .pending(workload("w").namespace("ai").podSet("main", 1, "cpu", "1"))
            .admits("w"),
        Scenario.named("namespaceSelector NotIn expression excludes")
            .flavors(flavor("default"))
            .queues(
                clusterQueue("cq")
                    .namespaceSelector(
                        expression("team", LabelSelectorRequirement.Operator.NotIn, "web"))
                    .flavor("default")
                    .res("cpu", "4"))
            .namespace("web", "team", "web")
            .localQueues(localQueue("web", "lq", "cq", StopPolicy.None))
            .pending(workload("w").namespace("web").podSet("main", 1, "cpu", "1"))
            .pendingWith("w", Inadmissible, "doesn't match the namespaceSelector"),
        Scenario.named("namespaceSelector Exists expression")
            .flavors(flavor("default"))
            .queues(
                clusterQueue("cq")
                    .namespaceSelector(
                        expression("batch", LabelSelectorRequirement.Operator.Exists))
                    .flavor("default")
                    .res("cpu", "4"))
            .namespace("b", "batch", "yes")
            .localQueues(localQueue("b", "lq", "cq", StopPolicy.None))
            .pending(workload("w").namespace("b").podSet("main", 1, "cpu", "1"))
            .admits("w"),
        Scenario.named("namespaceSelector DoesNotExist expression")
            .flavors(flavor("default"))
            .queues(
                clusterQueue("cq")
                    .namespaceSelector(
                        expression("frozen", LabelSelectorRequirement.Operator.DoesNotExist))
                    .flavor("default")
                    .res("cpu", "4"))
            .namespace("f", "frozen", "true")
            .localQueues(localQueue("f", "lq", "cq", StopPolicy.None))
            .pending(workload("w").namespace("f").podSet("main", 1, "cpu", "1"))
            .pendingWith("w", Inadmissible, "doesn't match"),
        Scenario.named("namespace labels changing makes the workload admissible")
            .flavors(flavor("default"))
            .queues(
                clusterQueue("cq")
                    .namespaceSelector(new LabelSelector(Map.of("team", "ml"), List.of()))
                    .flavor("default")
                    .res("cpu", "4"))
            .pending(workload("w").podSet("main", 1, "cpu", "1"))
            .then(e -> e.upsertNamespace("default", Map.of("team", "ml")))
            .admits("w"),
        oneQueue("missing LocalQueue is inadmissible", clusterQueue("cq"))
            .pending(workload("w").queue("nope").podSet("main", 1, "cpu", "1"))
            .admits()
            .pendingWith("w", Inadmissible, "LocalQueue default/nope doesn't exist"),
        oneQueue("the LocalQueue appearing routes its workloads", clusterQueue("cq"))
            .pending(workload("w").queue("late").podSet("main", 1, "cpu", "1"))
            .then(e -> e.upsertLocalQueue(localQueue("late", "cq")))
            .admits("w"),
        oneQueue("missing ClusterQueue is inadmissible", clusterQueue("cq"))
            .localQueues(localQueue("lq", "ghost"))
            .pending(workload("w").podSet("main", 1, "cpu", "1"))
            .pendingWith("w", Inadmissible, "ClusterQueue ghost doesn't exist"),
        oneQueue(
                "ClusterQueue Hold admits nothing new and evicts nothing",
                clusterQueue("cq").stop(StopPolicy.Hold))
            .running(workload("r").podSet("main", 1, "cpu", "1"), "cq", "default")
            .pending(workload("w").podSet("main", 1, "cpu", "1"))
            .admits()
            .pendingWith("w", Inadmissible, "ClusterQueue cq is stopped (Hold)")
            .check(o -> assertThat(o.evictions()).isEmpty()),
        oneQueue(
                "ClusterQueue HoldAndDrain evicts admitted workloads",
                clusterQueue("cq").stop(StopPolicy.HoldAndDrain))
            .running(workload("r").podSet("main", 1, "cpu", "1"), "cq", "default")
            .pending(workload("w").podSet("main", 1, "cpu", "1"))
            .admits()
            .evicts("r", EvictionReason.ClusterQueueStopped),
        oneQueue("LocalQueue Hold holds only its own workloads", clusterQueue("cq"))
            .localQueues(
                localQueue("default", "held", "cq", StopPolicy.Hold), localQueue("lq", "cq"))
            .pending(
                workload("w").queue("held").podSet("main", 1, "cpu", "1"),
                workload("other").podSet("main", 1, "cpu", "1"))
            .admits("other")
            .pendingWith("w", Inadmissible, "LocalQueue default/held is stopped (Hold)"),
        oneQueue("LocalQueue HoldAndDrain evicts its admitted workloads", clusterQueue("cq"))
            .localQueues(localQueue("lq", "cq"))
            .running(workload("r").podSet("main", 1, "cpu", "1"), "cq", "default")
            .then(
                e -> e.upsertLocalQueue(localQueue("default", "lq", "cq", StopPolicy.HoldAndDrain)))
            .evicts("r", EvictionReason.LocalQueueStopped),
        oneQueue(
                "resuming a stopped ClusterQueue admits again",
                clusterQueue("cq").stop(StopPolicy.Hold))
            .pending(workload("w").podSet("main", 1, "cpu", "1"))
            .then(
                e ->
                    e.upsertClusterQueue(
                        clusterQueue("cq").flavor("default").res("cpu", "4").build()))
            .admits("w"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void queueing(Scenario scenario) {
    scenario.run();
  }
}
