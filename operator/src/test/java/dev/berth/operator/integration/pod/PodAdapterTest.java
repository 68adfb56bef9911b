package dev.berth.operator.integration.pod;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.api.v1beta1.Admission;
import dev.berth.api.v1beta1.Berth;
import dev.berth.api.v1beta1.PodSetAssignment;
import dev.berth.api.v1beta1.Workload;
import dev.berth.api.v1beta1.WorkloadStatus;
import dev.berth.operator.integration.FixedFlavors;
import dev.berth.operator.integration.PriorityResolver;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A plain Pod under its Workload: one pod set of one, gated until admitted, stopped by deletion.
 */
class PodAdapterTest {
  private final PodAdapter adapter = new PodAdapter();

  private static final Toleration GPU =
      new TolerationBuilder()
          .withKey("nvidia.com/gpu")
          .withOperator("Exists")
          .withEffect("NoSchedule")
          .build();

  /** A plain Pod as the pod webhook stores it: labelled, marked, behind two gates. */
  private static Pod gated() {
    return new PodBuilder()
        .withNewMetadata()
        .withName("notebook")
        .withNamespace("team")
        .withUid("6f1f3a10-7d55-4b36-9a5e-1c2a0b7c7c1e")
        .addToLabels(Berth.QUEUE_NAME_LABEL, "serving")
        .addToLabels(Berth.MANAGED_LABEL, "true")
        .endMetadata()
        .withNewSpec()
        .addNewSchedulingGate("example.com/other")
        .addNewSchedulingGate(Berth.ADMISSION_SCHEDULING_GATE)
        .addToNodeSelector("zone", "a")
        .addNewContainer()
        .withName("main")
        .withNewResources()
        .addToRequests("nvidia.com/gpu", new Quantity("2"))
        .endResources()
        .endContainer()
        .endSpec()
        .build();
  }

  private static Workload admitted() {
    PodSetAssignment ps = new PodSetAssignment();
    ps.name = "main";
    ps.flavors = Map.of("nvidia.com/gpu", "h100");
    ps.count = 1;
    Admission admission = new Admission();
    admission.clusterQueue = "team-cq";
    admission.podSetAssignments = List.of(ps);
    Workload wl = new Workload();
    wl.getMetadata().setUid("wl-uid");
    wl.setStatus(new WorkloadStatus());
    wl.getStatus().admission = admission;
    return wl;
  }

  private static Pod withPhase(Pod pod, String phase) {
    return new PodBuilder(pod).withNewStatus().withPhase(phase).endStatus().build();
  }

  @Test
  void aPodIsOnePodSetOfOneWithoutTheAdmissionGate() {
    Workload workload = adapter.newWorkload(gated(), new PriorityResolver(null));
    assertThat(workload.getMetadata().getName()).startsWith("pod-notebook-");
    assertThat(workload.getSpec().queueName).isEqualTo("serving");
    assertThat(workload.getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(
            o -> {
              assertThat(o.getKind()).isEqualTo("Pod");
              assertThat(o.getApiVersion()).isEqualTo("v1");
            });
    assertThat(workload.getSpec().podSets)
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.name).isEqualTo("main");
              assertThat(p.count).isEqualTo(1);
              assertThat(p.template.getSpec().getSchedulingGates())
                  .extracting(g -> g.getName())
                  .containsExactly("example.com/other");
              assertThat(p.template.getSpec().getContainers().get(0).getResources().getRequests())
                  .containsEntry("nvidia.com/gpu", new Quantity("2"));
            });
  }

  @Test
  void gatedIsSuspendedAndAdmittedRemovesOnlyBerthsGateWithTheFlavor() {
    assertThat(adapter.isSuspended(gated())).isTrue();
    Pod started = adapter.admitted(gated(), admitted(), FixedFlavors.labelled("gpu", GPU));
    assertThat(adapter.isSuspended(started)).isFalse();
    assertThat(started.getSpec().getSchedulingGates())
        .extracting(g -> g.getName())
        .containsExactly("example.com/other");
    assertThat(started.getSpec().getNodeSelector())
        .containsExactlyInAnyOrderEntriesOf(Map.of("zone", "a", "gpu", "h100"));
    assertThat(started.getSpec().getTolerations()).containsExactly(GPU);
    // Pure: the pod it was given is unchanged.
    assertThat(adapter.isSuspended(gated())).isTrue();
  }

  @Test
  void aStartedPodIsStoppedByDeletionAndAGatedOneIsRestoredUnchanged() {
    assertThat(adapter.stoppedByDeletion()).isTrue();
    Pod restored = adapter.restored(gated(), admitted());
    assertThat(restored.getSpec()).isEqualTo(gated().getSpec());
  }

  @Test
  void itFinishesWithItsPhase() {
    assertThat(adapter.finished(gated())).isEmpty();
    assertThat(adapter.finished(withPhase(gated(), "Running"))).isEmpty();
    assertThat(adapter.finished(withPhase(gated(), "Succeeded")))
        .hasValueSatisfying(f -> assertThat(f.succeeded()).isTrue());
    Pod failed =
        new PodBuilder(gated())
            .withNewStatus()
            .withPhase("Failed")
            .withReason("Evicted")
            .withMessage("node pressure")
            .endStatus()
            .build();
    assertThat(adapter.finished(failed))
        .hasValueSatisfying(
            f -> {
              assertThat(f.succeeded()).isFalse();
              assertThat(f.message()).isEqualTo("Pod failed: Evicted (node pressure)");
            });
  }

  @Test
  void activeWhileReleasedAndNotEnded() {
    Pod started = adapter.admitted(gated(), admitted(), FixedFlavors.NONE);
    assertThat(adapter.activePods(gated())).isZero();
    assertThat(adapter.activePods(withPhase(started, "Pending"))).isEqualTo(1);
    assertThat(adapter.activePods(withPhase(started, "Running"))).isEqualTo(1);
    assertThat(adapter.activePods(withPhase(started, "Succeeded"))).isZero();
    assertThat(adapter.readyPods(withPhase(started, "Running"))).isZero();
    Pod ready =
        new PodBuilder(started)
            .withNewStatus()
            .withPhase("Running")
            .addNewCondition()
            .withType("Ready")
            .withStatus("True")
            .endCondition()
            .endStatus()
            .build();
    assertThat(adapter.readyPods(ready)).isEqualTo(1);
  }

  @Test
  void onlyUnownedPodsTheWebhookMarkedAreManaged() {
    assertThat(adapter.manages(gated())).isTrue();
    Pod unmarked = gated();
    unmarked.getMetadata().getLabels().remove(Berth.MANAGED_LABEL);
    assertThat(adapter.manages(unmarked)).as("labelled before the integration was on").isFalse();
    Pod ofAJob = gated();
    ofAJob
        .getMetadata()
        .setOwnerReferences(
            List.of(
                new OwnerReferenceBuilder()
                    .withApiVersion("batch/v1")
                    .withKind("Job")
                    .withName("train")
                    .withUid("u")
                    .withController(true)
                    .build()));
    assertThat(adapter.manages(ofAJob)).as("charged through its Job").isFalse();
  }

  @Test
  void ownerStatusIsGatedUntilReleasedThenThePhase() {
    assertThat(adapter.ownerStatus(gated())).isEqualTo("Gated");
    Pod released =
        new PodBuilder(gated()).editSpec().withSchedulingGates(List.of()).endSpec().build();
    assertThat(adapter.ownerStatus(released)).as("no phase yet").isEqualTo("Pending");
    assertThat(adapter.ownerStatus(withPhase(released, "Running"))).isEqualTo("Running");
  }
}
