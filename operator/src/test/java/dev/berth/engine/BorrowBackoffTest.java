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
 * A ClusterQueue's pause in borrowing after a reclaim: once quota it borrowed was taken back, it
 * admits nothing that borrows for its backoff, so the next workload in its line does not borrow the
 * freed quota again only to be preempted by the lender's next arrival; within its nominal quota it
 * admits as always.
 */
class BorrowBackoffTest {
  private static final PreemptionPolicy RECLAIMS =
      new PreemptionPolicy(
          WithinClusterQueue.Never, ReclaimWithinCohort.Any, BorrowWithinCohort.Never, null);

  static Stream<Arguments> engines() {
    Supplier<AdmissionEngine> classical = AdmissionEngine::new;
    Supplier<AdmissionEngine> fair =
        () -> new AdmissionEngine(new FairSharingOrdering(), new FairSharingPreemption());
    return Stream.of(Arguments.of("classical", classical), Arguments.of("fair sharing", fair));
  }

  /**
   * Cohort "c": "a" (2 cpu nominal, a pause of 120 s) borrows for "ra" (4 cpu) from "b" (4 cpu,
   * reclaims); b's "rb" takes its quota back at t = 10 s, and the eviction is seen then.
   */
  private static AdmissionEngine reclaimed(Supplier<AdmissionEngine> make) {
    AdmissionEngine engine = make.get();
    engine.upsertResourceFlavor(ResourceFlavor.named("f"));
    engine.upsertNamespace("ns", Map.of());
    engine.upsertClusterQueue(queue("a", 2, PreemptionPolicy.NEVER, 120_000L));
    engine.upsertClusterQueue(queue("b", 4, RECLAIMS, 0L));
    engine.upsertLocalQueue(new LocalQueue("ns", "la", "a", StopPolicy.None));
    engine.upsertLocalQueue(new LocalQueue("ns", "lb", "b", StopPolicy.None));
    engine.upsertWorkload(workload("ra", "la", 4, 0));
    assertThat(engine.runCycle(0).admissions()).extracting(Admission::workloadUid).contains("ra");

    engine.upsertWorkload(workload("rb", "lb", 4, 10_000));
    CycleResult reclaim = engine.runCycle(10_000);
    assertThat(reclaim.evictions())
        .singleElement()
        .satisfies(e -> assertThat(e.workloadUid()).isEqualTo("ra"));
    PreemptionReason why = reclaim.evictions().get(0).preemptionReason();
    engine.evictionObserved("ra", why, 10_000);
    engine.workloadEvicted("ra", 11_000);
    assertThat(engine.runCycle(11_000).admissions())
        .extracting(Admission::workloadUid)
        .containsExactly("rb");
    // The lender is done: its quota is free to borrow again, were it not for the pause.
    engine.workloadFinished("rb");
    return engine;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("engines")
  void theQueueBorrowsNothingUntilThePauseEnds(String name, Supplier<AdmissionEngine> make) {
    AdmissionEngine engine = reclaimed(make);
    CycleResult paused = engine.runCycle(20_000);
    assertThat(paused.admissions()).isEmpty();
    assertThat(paused.protectionEndsAt()).isEqualTo(130_000);
    assertThat(paused.pendingReasons().get("ra").message())
        .contains("borrows nothing for 110s more: quota it borrowed was just reclaimed");
    assertThat(engine.runCycle(129_999).admissions()).isEmpty();

    assertThat(engine.runCycle(130_000).admissions())
        .extracting(Admission::workloadUid)
        .containsExactly("ra");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("engines")
  void withinItsNominalQuotaTheQueueAdmitsDuringThePause(
      String name, Supplier<AdmissionEngine> make) {
    AdmissionEngine engine = reclaimed(make);
    engine.upsertWorkload(workload("small", "la", 2, 15_000));
    assertThat(engine.runCycle(20_000).admissions())
        .extracting(Admission::workloadUid)
        .containsExactly("small");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("engines")
  void withoutABackoffTheFreedQuotaIsBorrowedAgainAtOnce(
      String name, Supplier<AdmissionEngine> make) {
    AdmissionEngine engine = make.get();
    engine.upsertResourceFlavor(ResourceFlavor.named("f"));
    engine.upsertNamespace("ns", Map.of());
    engine.upsertClusterQueue(queue("a", 2, PreemptionPolicy.NEVER, 0L));
    engine.upsertClusterQueue(queue("b", 4, RECLAIMS, 0L));
    engine.upsertLocalQueue(new LocalQueue("ns", "la", "a", StopPolicy.None));
    engine.upsertLocalQueue(new LocalQueue("ns", "lb", "b", StopPolicy.None));
    engine.upsertWorkload(workload("ra", "la", 4, 0));
    engine.runCycle(0);
    engine.upsertWorkload(workload("rb", "lb", 4, 10_000));
    CycleResult reclaim = engine.runCycle(10_000);
    engine.evictionObserved("ra", reclaim.evictions().get(0).preemptionReason(), 10_000);
    engine.workloadEvicted("ra", 11_000);
    engine.runCycle(11_000);
    engine.workloadFinished("rb");
    assertThat(engine.runCycle(20_000).admissions())
        .extracting(Admission::workloadUid)
        .containsExactly("ra");
  }

  private static Workload workload(String uid, String queue, int cpu, long created) {
    return new Workload(
        uid,
        "ns",
        uid,
        queue,
        0,
        created,
        List.of(new PodSet("main", 1, null, Map.of("cpu", cpu * 1000L), null, null, null)));
  }

  private static ClusterQueue queue(
      String name, int cpu, PreemptionPolicy policy, long backoffMillis) {
    return MinimumRuntimeProperties.queue(name, cpu, 1000L, policy, 0L, backoffMillis);
  }
}
