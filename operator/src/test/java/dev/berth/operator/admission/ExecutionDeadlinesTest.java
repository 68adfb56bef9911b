package dev.berth.operator.admission;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.api.v1beta1.Workload;
import dev.berth.testing.Workloads;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * Maximum execution time deadlines fed as the loop feeds them, alone: a Workload version and its
 * phase in, when it runs out of time out. Only an admitted workload runs against its limit.
 */
class ExecutionDeadlinesTest {
  private static final String T0 = "2026-01-01T00:00:00Z";
  private static final String T1 = "2026-01-01T00:05:00Z";
  private static final long AT_T0 = Instant.parse(T0).toEpochMilli();

  private final ExecutionDeadlines deadlines = new ExecutionDeadlines();

  private static Workloads bounded(String name) {
    return Workloads.named(name).in("team").uid(name).queue("lq").maximumExecutionTimeSeconds(600);
  }

  private void observe(Workloads version) {
    Workload wl = version.build();
    deadlines.workload(wl, new PhaseClassifier(false).classify(wl, AT_T0));
  }

  @Test
  void anAdmittedWorkloadRunsOutItsLimitFromItsAdmissionLessWhatItUsedBefore() {
    observe(bounded("fresh").admitted("cq", "default", T0));
    Workload requeued = bounded("requeued").admitted("cq", "default", T1).build();
    requeued.getStatus().accumulatedPastExecutionTimeSeconds = 500;
    deadlines.workload(requeued, new PhaseClassifier(false).classify(requeued, AT_T0));

    assertThat(deadlines.snapshot())
        .containsEntry("fresh", AT_T0 + 600_000)
        .containsEntry("requeued", Instant.parse(T1).toEpochMilli() + 100_000);
    assertThat(deadlines.next()).hasValue(Instant.parse(T1).toEpochMilli() + 100_000);
  }

  @Test
  void noDeadlineWithoutALimitOrOutsideAdmitted() {
    observe(Workloads.named("unbounded").uid("unbounded").admitted("cq", "default", T0));
    observe(bounded("pending"));
    observe(bounded("reserved").reserved("cq", "default", T0));
    observe(bounded("deactivating").admitted("cq", "default", T0).active(false));
    observe(bounded("evicting").admitted("cq", "default", T0).evicted("Preempted", T1));
    observe(bounded("finished").admitted("cq", "default", T0).finished("Succeeded", T1));

    assertThat(deadlines.snapshot()).isEmpty();
    assertThat(deadlines.next()).isEmpty();
  }

  @Test
  void aLaterPhaseWithoutAdmissionDropsTheDeadline() {
    observe(bounded("train").admitted("cq", "default", T0));
    observe(bounded("train").admitted("cq", "default", T0).evicted("Preempted", T1));
    assertThat(deadlines.snapshot()).isEmpty();

    observe(bounded("train").admitted("cq", "default", T0));
    deadlines.workloadDeleted("train", null);
    assertThat(deadlines.snapshot()).isEmpty();
  }

  @Test
  void outOfTimeIsTakenOnceAndAskedAgainAfterAFailedWrite() {
    Workload wl = bounded("train").admitted("cq", "default", T0).build();
    deadlines.workload(wl, new PhaseClassifier(false).classify(wl, AT_T0));

    assertThat(deadlines.takeOutOfTime(AT_T0 + 599_999)).isEmpty();
    assertThat(deadlines.takeOutOfTime(AT_T0 + 600_000)).containsExactly("train");
    assertThat(deadlines.takeOutOfTime(AT_T0 + 700_000)).as("taken once").isEmpty();

    deadlines.again(wl);
    assertThat(deadlines.takeOutOfTime(AT_T0 + 700_000)).containsExactly("train");
  }
}
