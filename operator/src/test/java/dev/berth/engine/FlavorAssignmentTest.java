package dev.berth.engine;

import static dev.berth.engine.Builders.clusterQueue;
import static dev.berth.engine.Builders.flavor;
import static dev.berth.engine.Builders.localQueue;
import static dev.berth.engine.Builders.workload;
import static dev.berth.engine.model.FlavorFungibility.Preference.BorrowingOverPreemption;
import static dev.berth.engine.model.FlavorFungibility.Preference.PreemptionOverBorrowing;
import static dev.berth.engine.model.FlavorFungibility.WhenCanBorrow.MayStopSearch;
import static dev.berth.engine.model.FlavorFungibility.WhenCanBorrow.TryNextFlavor;
import static dev.berth.engine.model.PendingReason.ExceedsMaxQuota;
import static dev.berth.engine.model.PendingReason.NoMatchingFlavor;
import static dev.berth.engine.model.PendingReason.WaitingForQuota;

import dev.berth.engine.model.FlavorFungibility.WhenCanPreempt;
import dev.berth.engine.model.LabelSelectorRequirement.Operator;
import dev.berth.engine.model.PendingReason;
import dev.berth.engine.model.PreemptionPolicy;
import dev.berth.engine.model.TaintEffect;
import dev.berth.engine.model.Toleration;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Flavor matching, fungibility, several podSets and partial admission. */
class FlavorAssignmentTest {
  private static final PreemptionPolicy LOWER_PRIORITY =
      new PreemptionPolicy(PreemptionPolicy.WithinClusterQueue.LowerPriority, null, null, null);

  private static Builders.FlavorBuilder spot() {
    return flavor("spot").label("tier", "spot");
  }

  private static Builders.FlavorBuilder onDemand() {
    return flavor("on-demand").label("tier", "on-demand");
  }

  private static Builders.FlavorBuilder gpu() {
    return flavor("gpu").taint("nvidia.com/gpu", "present", TaintEffect.NoSchedule);
  }

  private static Builders.QueueBuilder spotThenOnDemand() {
    return clusterQueue("cq").flavor("spot").res("cpu", "4").flavor("on-demand").res("cpu", "10");
  }

  /** cq "a" with flavors f1 (nominal 2) and f2 (nominal 10); cq "b" lends 10 of f1. */
  private static Scenario borrowable(String name, Builders.QueueBuilder a) {
    return Scenario.named(name)
        .flavors(flavor("f1"), flavor("f2"))
        .queues(
            a.cohort("c").flavor("f1").res("cpu", "2").flavor("f2").res("cpu", "10"),
            clusterQueue("b").cohort("c").flavor("f1").res("cpu", "10"));
  }

  /** cq "a" whose f1 is full (preemption could free it) and f2 only reachable by borrowing. */
  private static Scenario preemptOrBorrow(String name, Builders.QueueBuilder a) {
    return Scenario.named(name)
        .flavors(flavor("f1"), flavor("f2"))
        .queues(
            a.cohort("c")
                .preemption(LOWER_PRIORITY)
                .flavor("f1")
                .res("cpu", "4")
                .flavor("f2")
                .res("cpu", "0"),
            clusterQueue("b").cohort("c").flavor("f2").res("cpu", "10"))
        .localQueues(localQueue("lq", "a"))
        .running(workload("low").podSet("main", 1, "cpu", "4"), "a", "f1");
  }

  static Stream<Scenario> cases() {
    return Stream.of(
        Scenario.named("first flavor that fits is chosen")
            .flavors(spot(), onDemand())
            .queues(spotThenOnDemand())
            .pending(workload("w").podSet("main", 2, "cpu", "1"))
            .assigns("w", "main", "cpu", "spot"),
        Scenario.named("next flavor when the first has no room")
            .flavors(spot(), onDemand())
            .queues(spotThenOnDemand())
            .pending(workload("w").podSet("main", 3, "cpu", "2"))
            .assigns("w", "main", "cpu", "on-demand"),
        Scenario.named("nodeSelector contradicting a flavor label skips it")
            .flavors(spot(), onDemand())
            .queues(spotThenOnDemand())
            .pending(workload("w").podSet("main", 1, "cpu", "1").nodeSelector("tier", "on-demand"))
            .assigns("w", "main", "cpu", "on-demand"),
        Scenario.named("nodeSelector on a key the flavor does not set does not skip it")
            .flavors(spot(), onDemand())
            .queues(spotThenOnDemand())
            .pending(workload("w").podSet("main", 1, "cpu", "1").nodeSelector("zone", "a"))
            .assigns("w", "main", "cpu", "spot"),
        Scenario.named("required node affinity In selects the matching flavor")
            .flavors(spot(), onDemand())
            .queues(spotThenOnDemand())
            .pending(
                workload("w")
                    .podSet("main", 1, "cpu", "1")
                    .requiredAffinity("tier", Operator.In, "on-demand"))
            .assigns("w", "main", "cpu", "on-demand"),
        Scenario.named("required node affinity NotIn skips the flavor")
            .flavors(spot(), onDemand())
            .queues(spotThenOnDemand())
            .pending(
                workload("w")
                    .podSet("main", 1, "cpu", "1")
                    .requiredAffinity("tier", Operator.NotIn, "spot"))
            .assigns("w", "main", "cpu", "on-demand"),
        Scenario.named("no flavor matches the labels")
            .flavors(spot(), onDemand())
            .queues(spotThenOnDemand())
            .pending(workload("w").podSet("main", 1, "cpu", "1").nodeSelector("tier", "reserved"))
            .admits()
            .pendingWith(
                "w",
                NoMatchingFlavor,
                "flavor spot has node label tier=spot, nodeSelector wants reserved"),
        Scenario.named("untolerated NoSchedule taint skips the flavor")
            .flavors(gpu())
            .queues(clusterQueue("cq").flavor("gpu").res("cpu", "10"))
            .pending(workload("w").podSet("main", 1, "cpu", "1"))
            .admits()
            .pendingWith(
                "w", NoMatchingFlavor, "untolerated taint nvidia.com/gpu=present:NoSchedule"),
        Scenario.named("pod toleration lets the workload use a tainted flavor")
            .flavors(gpu())
            .queues(clusterQueue("cq").flavor("gpu").res("cpu", "10"))
            .pending(
                workload("w")
                    .podSet("main", 1, "cpu", "1")
                    .toleration(Toleration.exists("nvidia.com/gpu", TaintEffect.NoSchedule)))
            .admits("w"),
        Scenario.named("the flavor's own toleration counts")
            .flavors(gpu().toleration(Toleration.equal("nvidia.com/gpu", "present", null)))
            .queues(clusterQueue("cq").flavor("gpu").res("cpu", "10"))
            .pending(workload("w").podSet("main", 1, "cpu", "1"))
            .admits("w"),
        Scenario.named("PreferNoSchedule taint does not need a toleration")
            .flavors(flavor("soft").taint("k", "v", TaintEffect.PreferNoSchedule))
            .queues(clusterQueue("cq").flavor("soft").res("cpu", "10"))
            .pending(workload("w").podSet("main", 1, "cpu", "1"))
            .admits("w"),
        Scenario.named("toleration with the wrong value does not tolerate")
            .flavors(flavor("t").taint("dedicated", "ml", TaintEffect.NoExecute))
            .queues(clusterQueue("cq").flavor("t").res("cpu", "10"))
            .pending(
                workload("w")
                    .podSet("main", 1, "cpu", "1")
                    .toleration(Toleration.equal("dedicated", "web", TaintEffect.NoExecute)))
            .pendingWith("w", NoMatchingFlavor, "untolerated taint dedicated=ml:NoExecute"),
        borrowable(
                "whenCanBorrow MayStopSearch borrows on the first flavor",
                clusterQueue("a").fungibility(MayStopSearch, null, null))
            .pending(workload("w").podSet("main", 1, "cpu", "4"))
            .assigns("w", "main", "cpu", "f1")
            .borrows("w", "cpu", "2"),
        borrowable(
                "whenCanBorrow TryNextFlavor prefers a later flavor without borrowing",
                clusterQueue("a").fungibility(TryNextFlavor, null, null))
            .pending(workload("w").podSet("main", 1, "cpu", "4"))
            .assigns("w", "main", "cpu", "f2")
            .borrows("w", "cpu", "0"),
        borrowable(
                "whenCanBorrow TryNextFlavor falls back to borrowing when nothing else fits",
                clusterQueue("a").fungibility(TryNextFlavor, null, null))
            .pending(workload("w").podSet("main", 1, "cpu", "11"))
            .assigns("w", "main", "cpu", "f1")
            .borrows("w", "cpu", "9"),
        preemptOrBorrow(
                "whenCanPreempt TryNextFlavor moves past a flavor that needs preemption",
                clusterQueue("a")
                    .fungibility(null, WhenCanPreempt.TryNextFlavor, BorrowingOverPreemption))
            .pending(workload("w").priority(10).podSet("main", 1, "cpu", "2"))
            .assigns("w", "main", "cpu", "f2"),
        preemptOrBorrow(
                "whenCanPreempt MayStopSearch stops at Preempt and waits when no victims",
                clusterQueue("a").fungibility(null, WhenCanPreempt.MayStopSearch, null))
            .pending(workload("w").priority(-1).podSet("main", 1, "cpu", "2"))
            .admits()
            .pendingWith("w", WaitingForQuota, "preemption could make room but found no victims"),
        preemptOrBorrow(
                "preference PreemptionOverBorrowing picks the Preempt flavor",
                clusterQueue("a")
                    .fungibility(
                        TryNextFlavor, WhenCanPreempt.TryNextFlavor, PreemptionOverBorrowing))
            .pending(workload("w").priority(10).podSet("main", 1, "cpu", "2"))
            .admits()
            .evicts("low", EvictionReason.Preempted)
            .pendingWith("w", PendingReason.WaitingForPreemptedWorkloads, "low"),
        preemptOrBorrow(
                "preference PreemptionOverBorrowing admits on the Preempt flavor once the victim is gone",
                clusterQueue("a")
                    .fungibility(
                        TryNextFlavor, WhenCanPreempt.TryNextFlavor, PreemptionOverBorrowing))
            .pending(workload("w").priority(10).podSet("main", 1, "cpu", "2"))
            .then(e -> e.workloadEvicted("low", 2))
            .assigns("w", "main", "cpu", "f1")
            .borrows("w", "cpu", "0"),
        preemptOrBorrow(
                "preference BorrowingOverPreemption picks the borrowing flavor",
                clusterQueue("a")
                    .fungibility(
                        TryNextFlavor, WhenCanPreempt.TryNextFlavor, BorrowingOverPreemption))
            .pending(workload("w").priority(10).podSet("main", 1, "cpu", "2"))
            .assigns("w", "main", "cpu", "f2")
            .borrows("w", "cpu", "2"),
        Scenario.named("without a preemption policy a full flavor is NoFit, not Preempt")
            .flavors(flavor("f1"))
            .queues(clusterQueue("cq").flavor("f1").res("cpu", "4"))
            .running(workload("low").podSet("main", 1, "cpu", "4"), "cq", "f1")
            .pending(workload("w").podSet("main", 1, "cpu", "2"))
            .pendingWith(
                "w", WaitingForQuota, "needs cpu 2 on flavor f1; 0 available: nominal 4, in use 4"),
        Scenario.named("several podSets are admitted together")
            .flavors(flavor("default"))
            .queues(clusterQueue("cq").flavor("default").res("cpu", "10"))
            .pending(workload("w").podSet("driver", 1, "cpu", "1").podSet("workers", 4, "cpu", "2"))
            .admits("w")
            .count("w", "workers", 4)
            .usage("cq", "default", "cpu", "9"),
        Scenario.named("all or nothing: earlier podSets' usage counts against later ones")
            .flavors(flavor("default"))
            .queues(clusterQueue("cq").flavor("default").res("cpu", "8"))
            .pending(workload("w").podSet("driver", 1, "cpu", "1").podSet("workers", 4, "cpu", "2"))
            .admits()
            .usage("cq", "default", "cpu", "0")
            .pendingWith(
                "w",
                ExceedsMaxQuota,
                "podSet workers: needs cpu 8 on flavor default (9 with the podSets before it)"),
        Scenario.named("podSets may land on different flavors")
            .flavors(spot(), onDemand())
            .queues(spotThenOnDemand())
            .pending(
                workload("w")
                    .podSet("driver", 1, "cpu", "1")
                    .nodeSelector("tier", "on-demand")
                    .podSet("workers", 2, "cpu", "2"))
            .assigns("w", "driver", "cpu", "on-demand")
            .assigns("w", "workers", "cpu", "spot"),
        Scenario.named("partial admission takes the largest count that fits")
            .flavors(flavor("default"))
            .queues(clusterQueue("cq").flavor("default").res("cpu", "6"))
            .pending(workload("w").podSet("main", 10, "cpu", "1").minCount(4))
            .admits("w")
            .count("w", "main", 6)
            .usage("cq", "default", "cpu", "6"),
        Scenario.named("partial admission never goes below minCount")
            .flavors(flavor("default"))
            .queues(clusterQueue("cq").flavor("default").res("cpu", "6"))
            .pending(workload("w").podSet("main", 10, "cpu", "1").minCount(7))
            .admits()
            .pendingWith("w", ExceedsMaxQuota, "needs cpu 7 on flavor default"),
        Scenario.named("a partially admissible workload waits for quota, never exceeds it")
            .flavors(flavor("default"))
            .queues(clusterQueue("cq").flavor("default").res("cpu", "9"))
            .running(workload("r").podSet("main", 9, "cpu", "1"), "cq", "default")
            .pending(workload("w").podSet("main", 20, "cpu", "1").minCount(5))
            .admits()
            .pendingWith("w", WaitingForQuota, "needs cpu 5 on flavor default"),
        Scenario.named("a partially admissible workload is admitted partially once quota frees")
            .flavors(flavor("default"))
            .queues(clusterQueue("cq").flavor("default").res("cpu", "9"))
            .running(workload("r").podSet("main", 9, "cpu", "1"), "cq", "default")
            .pending(workload("w").podSet("main", 20, "cpu", "1").minCount(5))
            .then(e -> e.workloadFinished("r"))
            .admits("w")
            .count("w", "main", 9),
        Scenario.named("partial admission with another podSet counted in full")
            .flavors(flavor("default"))
            .queues(clusterQueue("cq").flavor("default").res("cpu", "10"))
            .pending(
                workload("w")
                    .podSet("driver", 1, "cpu", "3")
                    .podSet("workers", 10, "cpu", "1")
                    .minCount(2))
            .count("w", "workers", 7)
            .count("w", "driver", 1),
        Scenario.named("a shared claim's devices are held once, not once per pod")
            .flavors(flavor("default"))
            .queues(clusterQueue("cq").flavor("default").res("gpu", "2"))
            .pending(workload("w").podSet("main", 4, "cpu", "0").shared("gpu", "2"))
            .admits("w")
            .count("w", "main", 4)
            .usage("cq", "default", "gpu", "2"),
        Scenario.named("a shared claim adds to what the pods hold each")
            .flavors(flavor("default"))
            .queues(clusterQueue("cq").flavor("default").res("gpu", "9"))
            .pending(workload("w").podSet("main", 4, "gpu", "2").shared("gpu", "2"))
            .admits()
            .pendingWith("w", ExceedsMaxQuota, "needs gpu 10 on flavor default"),
        Scenario.named("partial admission shrinks the pods, never the shared claim")
            .flavors(flavor("default"))
            .queues(clusterQueue("cq").flavor("default").res("gpu", "9"))
            .pending(workload("w").podSet("main", 4, "gpu", "2").minCount(2).shared("gpu", "2"))
            .admits("w")
            .count("w", "main", 3)
            .usage("cq", "default", "gpu", "8"),
        Scenario.named("the pods resource counts one per pod")
            .flavors(flavor("default"))
            .queues(clusterQueue("cq").flavor("default").res("cpu", "10").res("pods", "3"))
            .pending(workload("w").podSet("main", 4, "cpu", "1"))
            .admits()
            .pendingWith("w", ExceedsMaxQuota, "needs pods 4 on flavor default"),
        Scenario.named("a resource the ClusterQueue does not cover matches no flavor")
            .flavors(flavor("default"))
            .queues(clusterQueue("cq").flavor("default").res("cpu", "10"))
            .pending(workload("w").podSet("main", 1, "cpu", "1", "nvidia.com/gpu", "1"))
            .pendingWith(
                "w", NoMatchingFlavor, "resource nvidia.com/gpu is not covered by ClusterQueue cq"),
        Scenario.named("resource groups are assigned independently")
            .flavors(flavor("default"), flavor("a100"), flavor("h100"))
            .queues(
                clusterQueue("cq")
                    .flavor("default")
                    .res("cpu", "64")
                    .res("memory", "256Gi")
                    .newGroup()
                    .flavor("a100")
                    .res("nvidia.com/gpu", "2")
                    .flavor("h100")
                    .res("nvidia.com/gpu", "8"))
            .pending(
                workload("w")
                    .podSet("main", 1, "cpu", "8", "memory", "32Gi", "nvidia.com/gpu", "4"))
            .assigns("w", "main", "cpu", "default")
            .assigns("w", "main", "memory", "default")
            .assigns("w", "main", "nvidia.com/gpu", "h100"),
        Scenario.named("a ClusterQueue naming a missing flavor is inactive")
            .flavors(flavor("default"))
            .queues(clusterQueue("cq").flavor("ghost").res("cpu", "10"))
            .pending(workload("w").podSet("main", 1, "cpu", "1"))
            .admits()
            .pendingWith(
                "w",
                dev.berth.engine.model.PendingReason.Inadmissible,
                "flavor ghost doesn't exist"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void flavors(Scenario scenario) {
    scenario.run();
  }
}
