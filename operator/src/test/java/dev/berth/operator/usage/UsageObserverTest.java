package dev.berth.operator.usage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.api.v1beta1.Berth;
import dev.berth.api.v1beta1.Workload;
import dev.berth.engine.usage.Run;
import dev.berth.engine.usage.UsageLedger;
import dev.berth.operator.admission.PhaseClassifier;
import dev.berth.operator.admission.WorkloadPhase;
import dev.berth.testing.Workloads;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The usage ledger fed as the loop feeds it, alone: Workload versions with their phase, pods and
 * namespaces in, the runs it opened and ended (and each workload's pods) out.
 */
class UsageObserverTest {
  private static final String T0 = "2026-12-01T10:00:00Z";
  private static final String T1 = "2026-12-01T11:00:00Z";

  private final UsageObserver usage = new UsageObserver();
  private int rv = 1;

  private Workloads workload() {
    return Workloads.named("train")
        .in("team")
        .uid("train")
        .resourceVersion(String.valueOf(rv++))
        .queue("lq")
        .request("cpu", "2");
  }

  /** The Workload, owned by Job uid "job-uid", with the phase the loop reads it into. */
  private void observe(Workloads version) {
    Workload wl = owned(version.build());
    usage.workload(wl, phase(wl));
  }

  private static WorkloadPhase phase(Workload wl) {
    return new PhaseClassifier(false).classify(wl, Instant.parse(T1).toEpochMilli());
  }

  private static Workload owned(Workload wl) {
    wl.getMetadata()
        .setOwnerReferences(
            List.of(
                new OwnerReferenceBuilder()
                    .withKind("Job")
                    .withName("train")
                    .withUid("job-uid")
                    .withController(true)
                    .build()));
    return wl;
  }

  @Test
  void aReservationOpensARunBilledToTheNamespacesCostCentreAndFinishingEndsIt() {
    usage.namespace("team", Map.of(UsageTranslator.COST_CENTRE_LABEL, "cc-research"));

    observe(workload());
    assertThat(usage.takeEvents()).as("pending: nothing to bill").isEmpty();
    observe(workload().admitted("cq", "default", T0));

    List<UsageLedger.Event> opened = usage.takeEvents();
    assertThat(opened).singleElement().isInstanceOf(UsageLedger.Opened.class);
    var run = ((UsageLedger.Opened) opened.get(0)).run();
    assertThat(run.owner().costCentre()).isEqualTo("cc-research");
    assertThat(run.owner().clusterQueue()).isEqualTo("cq");
    assertThat(run.start()).isEqualTo(Instant.parse(T0).toEpochMilli());
    assertThat(usage.takeEvents()).as("taken once").isEmpty();

    observe(workload().admitted("cq", "default", T0).finished("Succeeded", T1));
    assertThat(usage.takeEvents())
        .singleElement()
        .isEqualTo(
            new UsageLedger.Ended(
                new Run(
                    run.uid(),
                    run.name(),
                    run.owner(),
                    run.start(),
                    Instant.parse(T1).toEpochMilli(),
                    run.requests()),
                true));
  }

  @Test
  void aDeletedNamespaceNoLongerNamesTheCostCentre() {
    usage.namespace("team", Map.of(UsageTranslator.COST_CENTRE_LABEL, "cc-research"));
    usage.namespaceDeleted("team");

    observe(workload().admitted("cq", "default", T0));

    var opened = (UsageLedger.Opened) usage.takeEvents().get(0);
    assertThat(opened.run().owner().costCentre()).isEmpty();
  }

  @Test
  void aDeletedWorkloadEndsItsOpenRunWithNothingToRecordOnAndForgetsItsPods() {
    observe(workload().admitted("cq", "default", T0));
    Workload last = owned(workload().admitted("cq", "default", T0).build());
    usage.pod(pod("train-0", "job-uid", "main"));
    assertThat(usage.podsOf(last)).containsExactly(Map.entry("train-0", "main"));
    usage.takeEvents();

    usage.workloadDeleted("train", last);

    assertThat(usage.takeEvents())
        .singleElement()
        .satisfies(e -> assertThat(((UsageLedger.Ended) e).durable()).isFalse());
    assertThat(usage.podsOf(last)).isEmpty();
  }

  @Test
  void onlyThePodsOfAKnownWorkloadsOwnerAreKept() {
    usage.pod(pod("early-0", "job-uid", "main"));
    observe(workload());
    usage.pod(pod("train-0", "job-uid", ""));
    usage.pod(pod("other-0", "another-job", "main"));

    Workload wl = owned(workload().build());
    assertThat(usage.podsOf(wl))
        .as("seen after the Workload, of its owner; one podSet stands for a pod that does not say")
        .containsExactly(Map.entry("train-0", "main"));
  }

  @Test
  void aVersionTheLedgerCannotReadIsNotBilledAndDoesNotThrow() {
    observe(workload().admitted("cq", "default", "2026-13-45T99:00:00Z"));

    assertThat(usage.takeEvents()).isEmpty();
  }

  private static Pod pod(String name, String ownerUid, String podSet) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace("team")
        .withLabels(podSet.isEmpty() ? Map.of() : Map.of(Berth.PODSET_LABEL, podSet))
        .withOwnerReferences(
            new OwnerReferenceBuilder()
                .withKind("Job")
                .withName("train")
                .withUid(ownerUid)
                .withController(true)
                .build())
        .endMetadata()
        .build();
  }
}
