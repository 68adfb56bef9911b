package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.api.v1beta1.ClusterQueuePreemption;
import dev.berth.e2e.plane.ControlPlane;
import dev.berth.e2e.plane.SimNode;
import dev.berth.operator.BerthOperator;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Berth on a whole control plane ({@link ControlPlane}): nothing here writes Job or pod status. The
 * Job controller makes the pods of an admitted Job, kube-scheduler binds them through the
 * nodeSelector and tolerations Berth added from the flavor, KWOK runs and finishes them, the Job
 * controller marks the Job finished, and Berth releases the quota. The tests read where each pod
 * landed from its Node's labels.
 */
class ControlPlaneE2EIT {
  private static ControlPlane plane;
  private static OnPlane on;
  private static BerthOperator operator;

  @BeforeAll
  static void setUp() {
    plane = ControlPlane.start("placement", ControlPlane.gpuFleet());
    on = new OnPlane(plane);
    Namespaces.ensure(plane.client(), "berth-system");
    operator = RunningOperator.startNew(plane.kubeconfig(), false);
    plane.client().resource(on.flavor("plane-h100", SimNode.H100, "on-demand", List.of())).create();
    plane.client().resource(on.flavor("plane-a100", SimNode.A100, "on-demand", List.of())).create();
    Toleration spot = new Toleration("NoSchedule", SimNode.LIFECYCLE, "Equal", null, "spot");
    plane.client().resource(on.flavor("plane-spot", SimNode.H100, "spot", List.of(spot))).create();
  }

  @AfterAll
  static void tearDown() {
    if (operator != null) {
      operator.close();
    }
    // Stopped now, not at JVM exit: the rest of the suite should not share the cores with it.
    if (plane != null) {
      plane.close();
    }
  }

  private static Scenario queue(String name, String flavor, int gpus) {
    return on.queue(name, flavor, gpus);
  }

  private static Job gpuJob(Scenario s, String name, int pods, String annotation, String after) {
    return OnPlane.gpuJob(s, name, pods, annotation, after);
  }

  private static List<Pod> runningPods(Scenario s, String job, int count) {
    return on.runningPods(s, job, count);
  }

  private static void awaitJobCondition(Scenario s, String job, String type) {
    on.awaitJobCondition(s, job, type);
  }

  private static void awaitFinished(Scenario s, String job) {
    on.awaitFinished(s, job);
  }

  @Test
  void anH100JobRunsOnlyOnOnDemandH100NodesAndItsCompletionAdmitsTheNext() {
    Scenario s = queue("plane-h100", "plane-h100", 16);
    s.submit(gpuJob(s, "first", 2, ControlPlane.RUN_FOR, "3s"));
    s.submit(gpuJob(s, "second", 2, ControlPlane.RUN_FOR, "4s"));

    List<Pod> first = runningPods(s, "first", 2);
    // Two pods of 8 GPUs fill both H100 nodes; the idle A100 and spot nodes take none of them.
    assertThat(first)
        .allSatisfy(
            p ->
                assertThat(plane.nodeLabels(p))
                    .containsEntry(SimNode.GPU_PRODUCT, SimNode.H100)
                    .containsEntry(SimNode.LIFECYCLE, "on-demand"));
    assertThat(first)
        .extracting(p -> p.getSpec().getNodeName())
        .containsExactlyInAnyOrder("h100-a-0", "h100-a-1");
    assertThat(s.running("second")).isFalse();
    assertThat(plane.podsOf(s.namespace, "second")).isEmpty();

    awaitJobCondition(s, "first", "Complete");
    assertThat(s.job("first").getStatus().getSucceeded()).isEqualTo(2);
    awaitFinished(s, "first");
    List<Pod> second = runningPods(s, "second", 2);
    assertThat(second)
        .extracting(p -> p.getSpec().getNodeName())
        .containsExactlyInAnyOrder("h100-a-0", "h100-a-1");
    awaitJobCondition(s, "second", "Complete");
    awaitFinished(s, "second");
  }

  @Test
  void aSpotJobRunsOnlyOnTaintedSpotNodesAndAnA100JobOnlyOnA100Nodes() {
    Scenario spot = queue("plane-spot", "plane-spot", 16);
    Scenario a100 = queue("plane-a100", "plane-a100", 8);
    spot.submit(gpuJob(spot, "spot", 2, ControlPlane.RUN_FOR, "4s"));
    a100.submit(gpuJob(a100, "a100", 1, ControlPlane.RUN_FOR, "4s"));

    // The on-demand H100 nodes are free and untainted, yet the flavors' node labels keep the
    // pods off them; only the spot flavor's toleration lets pods onto the tainted spot nodes.
    assertThat(runningPods(spot, "spot", 2))
        .allSatisfy(
            p ->
                assertThat(plane.nodeLabels(p))
                    .containsEntry(SimNode.GPU_PRODUCT, SimNode.H100)
                    .containsEntry(SimNode.LIFECYCLE, "spot"));
    assertThat(runningPods(a100, "a100", 1))
        .allSatisfy(
            p -> assertThat(plane.nodeLabels(p)).containsEntry(SimNode.GPU_PRODUCT, SimNode.A100));
    awaitJobCondition(spot, "spot", "Complete");
    awaitJobCondition(a100, "a100", "Complete");
    awaitFinished(spot, "spot");
    awaitFinished(a100, "a100");
  }

  @Test
  void aJobWhosePodFailsIsFinishedAndFreesItsQuota() {
    Scenario s = queue("plane-fail", "plane-a100", 8);
    s.submit(gpuJob(s, "flaky", 1, ControlPlane.FAIL_AFTER, "2s"));
    s.submit(gpuJob(s, "after", 1, ControlPlane.RUN_FOR, "4s"));

    runningPods(s, "flaky", 1);
    assertThat(s.running("after")).isFalse();
    // backoffLimit 0: the Job controller fails the Job on its pod's failure.
    awaitJobCondition(s, "flaky", "Failed");
    awaitFinished(s, "flaky");
    assertThat(runningPods(s, "after", 1))
        .allSatisfy(
            p -> assertThat(plane.nodeLabels(p)).containsEntry(SimNode.GPU_PRODUCT, SimNode.A100));
    awaitJobCondition(s, "after", "Complete");
  }

  @Test
  void aPreemptedVictimsPodsStopBeforeThePreemptorsPodsAreBound() {
    on.priorityClass("plane-low", 10);
    on.priorityClass("plane-high", 1000);
    ClusterQueuePreemption preemption = new ClusterQueuePreemption();
    preemption.withinClusterQueue = ClusterQueuePreemption.WithinClusterQueue.LowerPriority;
    Scenario s = on.queue("plane-preempt", "plane-a100", 8, preemption);
    // The victim trains until stopped and then takes 3 s to stop, as with a grace period.
    Job victim = gpuJob(s, "victim", 1, ControlPlane.STOP_AFTER, "3s");
    victim.getMetadata().getLabels().put("berth.dev/priority-class", "plane-low");
    s.submit(victim);
    runningPods(s, "victim", 1);

    // The pod events in the API server's order: the victim's pod stopping, the urgent one bound.
    try (OnPlane.StopThenBind events =
        new OnPlane.StopThenBind(
            plane.client(), s.namespace, "batch.kubernetes.io/job-name", "victim", 1, "urgent")) {
      Job urgent = gpuJob(s, "urgent", 1, ControlPlane.RUN_FOR, "1s");
      urgent.getMetadata().getLabels().put("berth.dev/priority-class", "plane-high");
      s.submit(urgent);
      awaitJobCondition(s, "urgent", "Complete");
      // The other A100 node was free all along: only Berth's waiting kept the urgent pod
      // from binding while the victim still held its GPUs.
      assertThat(events.order).containsExactly("victim stopped", "preemptor bound");
    }
    // Requeued, the victim is admitted again once the urgent Job is done and really reruns.
    assertThat(runningPods(s, "victim", 1))
        .allSatisfy(
            p -> assertThat(plane.nodeLabels(p)).containsEntry(SimNode.GPU_PRODUCT, SimNode.A100));
    // Stop it for good; the garbage collector removes its pods.
    s.client.resource(s.job("victim")).delete();
  }
}
