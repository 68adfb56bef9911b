package dev.berth.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.engine.model.ClusterQueue;
import dev.berth.engine.model.LocalQueue;
import dev.berth.engine.model.PodSet;
import dev.berth.engine.model.PreemptionPolicy;
import dev.berth.engine.model.PreemptionPolicy.BorrowWithinCohort;
import dev.berth.engine.model.PreemptionPolicy.ReclaimWithinCohort;
import dev.berth.engine.model.PreemptionPolicy.WithinClusterQueue;
import dev.berth.engine.model.ResourceFlavor;
import dev.berth.engine.model.StopPolicy;
import dev.berth.engine.model.Workload;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A ClusterQueue's minimum runtime: its workloads are not taken by another queue, for reclamation
 * or fair sharing, until they have run that long; a higher priority in the same queue still
 * preempts at once.
 */
class MinimumRuntimeTest {

  static Stream<Arguments> engines() {
    Supplier<AdmissionEngine> classical = AdmissionEngine::new;
    Supplier<AdmissionEngine> fair =
        () -> new AdmissionEngine(new FairSharingOrdering(), new FairSharingPreemption());
    return Stream.of(Arguments.of("classical", classical), Arguments.of("fair sharing", fair));
  }

  /**
   * Cohort "c": "a" ({@code aCpu} of quota, minimum runtime 60 s, LowerPriority inside) runs "ra",
   * 4 cpu, from t = 0 (without quota of its own, borrowed from b); "b" (4 cpu, reclaimWithinCohort
   * Any).
   */
  private static AdmissionEngine cohort(Supplier<AdmissionEngine> make, int aCpu) {
    AdmissionEngine engine = make.get();
    engine.upsertResourceFlavor(ResourceFlavor.named("f"));
    engine.upsertNamespace("ns", Map.of());
    engine.upsertClusterQueue(
        queue(
            "a",
            aCpu,
            new PreemptionPolicy(
                WithinClusterQueue.LowerPriority,
                ReclaimWithinCohort.Never,
                BorrowWithinCohort.Never,
                null),
            60_000));
    engine.upsertClusterQueue(
        queue(
            "b",
            4,
            new PreemptionPolicy(
                WithinClusterQueue.Never, ReclaimWithinCohort.Any, BorrowWithinCohort.Never, null),
            0));
    engine.upsertLocalQueue(new LocalQueue("ns", "la", "a", StopPolicy.None));
    engine.upsertLocalQueue(new LocalQueue("ns", "lb", "b", StopPolicy.None));
    engine.upsertWorkload(workload("ra", "la", 0, 0));
    assertThat(engine.runCycle(0).admissions()).extracting(Admission::workloadUid).contains("ra");
    return engine;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("engines")
  void anotherQueueWaitsForTheMinimumRuntime(String name, Supplier<AdmissionEngine> make) {
    AdmissionEngine engine = cohort(make, 0);
    engine.upsertWorkload(workload("b1", "lb", 0, 10_000));
    CycleResult early = engine.runCycle(10_000);
    assertThat(early.evictions()).isEmpty();
    assertThat(early.protectionEndsAt()).isEqualTo(60_000);
    assertThat(early.pendingReasons().get("b1").message())
        .contains("minimum runtime, the first for 50s more");
    assertThat(engine.runCycle(59_999).evictions()).isEmpty();

    CycleResult due = engine.runCycle(60_000);
    assertThat(due.evictions())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.workloadUid()).isEqualTo("ra");
              assertThat(e.preemptorUid()).isEqualTo("b1");
            });
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("engines")
  void aHigherPriorityInTheSameQueueDoesNotWait(String name, Supplier<AdmissionEngine> make) {
    AdmissionEngine engine = cohort(make, 4);
    // b uses its own quota: a2 cannot borrow it.
    engine.upsertWorkload(workload("rb", "lb", 0, 5_000));
    assertThat(engine.runCycle(5_000).admissions())
        .extracting(Admission::workloadUid)
        .contains("rb");
    engine.upsertWorkload(workload("a2", "la", 5, 10_000));
    CycleResult r = engine.runCycle(10_000);
    assertThat(r.evictions())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.workloadUid()).isEqualTo("ra");
              assertThat(e.preemptionReason()).isEqualTo(PreemptionReason.InClusterQueue);
            });
  }

  private static Workload workload(String uid, String queue, int priority, long created) {
    return new Workload(
        uid,
        "ns",
        uid,
        queue,
        priority,
        created,
        List.of(new PodSet("main", 1, null, Map.of("cpu", 4000L), null, null, null)));
  }

  private static ClusterQueue queue(
      String name, int cpu, PreemptionPolicy policy, long minimumRuntimeMillis) {
    return MinimumRuntimeProperties.queue(name, cpu, 1000L, policy, minimumRuntimeMillis);
  }
}
