package dev.berth.engine;

import static dev.berth.engine.Builders.clusterQueue;
import static dev.berth.engine.Builders.flavor;
import static dev.berth.engine.Builders.workload;
import static dev.berth.engine.model.PendingReason.ExceedsMaxQuota;
import static dev.berth.engine.model.PendingReason.WaitingForQuota;
import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.engine.model.Explanation;
import dev.berth.engine.model.PendingReason;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** What a pending workload is told: the podSet's own numbers, lending, borrowing, one line. */
class PendingMessagesTest {

  static Stream<Scenario> cases() {
    return Stream.of(
        Scenario.named("a JobSet's podSet shows its own need, then the whole")
            .flavors(flavor("h100"))
            .queues(clusterQueue("cq").flavor("h100").res("nvidia.com/gpu", "5"))
            .pending(
                workload("js")
                    .podSet("a", 1, "nvidia.com/gpu", "2")
                    .podSet("b", 1, "nvidia.com/gpu", "2")
                    .podSet("c", 1, "nvidia.com/gpu", "2"))
            .admits()
            .pendingWith(
                "js",
                ExceedsMaxQuota,
                "podSet c: needs nvidia.com/gpu 2 on flavor h100 (6 with the podSets before it);"
                    + " at most 5 could ever be available"),
        Scenario.named("unused nominal quota lent to the cohort is named")
            .flavors(flavor("h100"))
            .queues(
                clusterQueue("a").cohort("ai").flavor("h100").res("nvidia.com/gpu", "2"),
                clusterQueue("b").cohort("ai").flavor("h100").res("nvidia.com/gpu", "0"))
            .running(workload("mine").podSet("main", 1, "nvidia.com/gpu", "1"), "a", "h100")
            .running(workload("theirs").podSet("main", 1, "nvidia.com/gpu", "1"), "b", "h100")
            .pending(workload("w").queue("lq").podSet("main", 1, "nvidia.com/gpu", "1"))
            .admits()
            .pendingWith(
                "w",
                WaitingForQuota,
                "needs nvidia.com/gpu 1 on flavor h100; 0 available: nominal 2, in use 1,"
                    + " 1 lent to cohort ai, may borrow 0 from cohort ai"),
        Scenario.named("quota in use beyond nominal is named as borrowed")
            .flavors(flavor("default"))
            .queues(
                clusterQueue("a").cohort("c").flavor("default").res("cpu", "10"),
                clusterQueue("b").cohort("c").flavor("default").res("cpu", "4"))
            .running(workload("big").podSet("main", 1, "cpu", "12"), "a", "default")
            .pending(workload("w").podSet("main", 1, "cpu", "3"))
            .admits()
            .pendingWith(
                "w",
                WaitingForQuota,
                "2 available: nominal 10, in use 12 (2 borrowed), may borrow 2 from cohort c"),
        Scenario.named("a workload joining a held LocalQueue says why, without a rebuild")
            .flavors(flavor("default"))
            .queues(clusterQueue("cq").namespaceSelector(null).flavor("default").res("cpu", "4"))
            .pending(workload("first").podSet("main", 1, "cpu", "1"))
            .then(e -> e.upsertWorkload(workload("later").podSet("main", 1, "cpu", "2").build()))
            .admits()
            .pendingWith(
                "later",
                PendingReason.Inadmissible,
                "namespace default doesn't match the namespaceSelector of ClusterQueue cq"),
        Scenario.named("the summary is one line under 200 characters, the scarcest first")
            .flavors(flavor("f1"), flavor("f2"), flavor("f3"))
            .queues(
                clusterQueue("cq")
                    .flavor("f1")
                    .res("cpu", "100")
                    .res("memory", "100Gi")
                    .res("nvidia.com/gpu", "8")
                    .flavor("f2")
                    .res("cpu", "100")
                    .res("memory", "100Gi")
                    .res("nvidia.com/gpu", "8")
                    .flavor("f3")
                    .res("cpu", "100")
                    .res("memory", "100Gi")
                    .res("nvidia.com/gpu", "8"))
            .running(
                workload("r1")
                    .podSet("main", 1, "cpu", "90", "memory", "90Gi", "nvidia.com/gpu", "8"),
                "cq",
                "f1")
            .running(
                workload("r2")
                    .podSet("main", 1, "cpu", "90", "memory", "90Gi", "nvidia.com/gpu", "8"),
                "cq",
                "f2")
            .running(
                workload("r3")
                    .podSet("main", 1, "cpu", "90", "memory", "90Gi", "nvidia.com/gpu", "8"),
                "cq",
                "f3")
            .pending(
                workload("w")
                    .podSet("main", 1, "cpu", "20", "memory", "20Gi", "nvidia.com/gpu", "8"))
            .admits()
            .check(
                o -> {
                  PendingStatus s = o.engine().status().pendingStatus("w");
                  assertThat(s.summary())
                      .hasSizeLessThan(200)
                      .doesNotContain("\n")
                      .startsWith("needs nvidia.com/gpu 8 on flavor f1; 0 available")
                      .endsWith("and 8 more (see Events)");
                  assertThat(s.message())
                      .contains("needs memory 20Gi on flavor f3")
                      .hasSizeGreaterThan(500);
                }));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void message(Scenario scenario) {
    scenario.run();
  }

  @Test
  void aLongSingleMessageIsCutWithAnEllipsis() {
    Explanation why = Explanation.of(PendingReason.Inadmissible, "x".repeat(300) + "\nsecond");
    assertThat(why.summary()).hasSize(199).endsWith("\u2026");
    assertThat(why.message()).hasSize(307);
  }

  @Test
  void aNoteAddedToPartsSurvivesTheCut() {
    Explanation base = Explanation.ofParts(WaitingForQuota, List.of("needs gpu 8", "needs cpu 2"));
    Explanation why =
        Explanation.withSuffix(WaitingForQuota, base, "; preemption found no victims");
    assertThat(why.summary())
        .isEqualTo("needs gpu 8; preemption found no victims; and 1 more (see Events)");
    assertThat(why.message()).isEqualTo("needs gpu 8; needs cpu 2; preemption found no victims");
  }

  @Test
  void aNoteAfterALongFirstPartIsKeptAndThePartCut() {
    Explanation base = Explanation.ofParts(WaitingForQuota, List.of("x".repeat(300)));
    String note =
        "; the workloads it could preempt run for their minimum runtime, the first for 5s more";
    Explanation why = Explanation.withSuffix(WaitingForQuota, base, note);
    assertThat(why.summary()).hasSize(Explanation.SUMMARY_LIMIT).endsWith("x\u2026" + note);
  }
}
