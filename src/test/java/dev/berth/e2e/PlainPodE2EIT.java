package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.api.v1beta1.Berth;
import dev.berth.api.v1beta1.ClusterQueuePreemption;
import dev.berth.api.v1beta1.Workload;
import dev.berth.e2e.plane.ControlPlane;
import dev.berth.e2e.plane.SimNode;
import dev.berth.operator.BerthOperator;
import dev.berth.webhook.WebhookRuntime;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Plain Pods (the {@code pod} integration) on a whole control plane ({@link ControlPlane}) with
 * Berth's chart webhooks: a pod labelled with a LocalQueue is stored behind Berth's admission gate,
 * gets a Workload, and is released by the operator (its flavor's node labels in its nodeSelector)
 * once admitted; kube-scheduler binds it and KWOK runs it; its end gives the quota back. Eviction
 * deletes the pod, and the preemptor is bound only after the victim is gone.
 */
class PlainPodE2EIT {
  private static ControlPlane plane;
  private static OnPlane on;
  private static WebhookRuntime webhooks;
  private static BerthOperator operator;

  @BeforeAll
  static void setUp() throws Exception {
    plane = ControlPlane.start("plain-pods", ControlPlane.gpuFleet());
    on = new OnPlane(plane);
    var admin = plane.client();
    Namespaces.ensure(admin, "berth-system");
    webhooks = ServedWebhooks.start(admin);
    admin.resource(on.flavor("pods-h100", SimNode.H100, "on-demand", List.of())).create();
    admin.resource(on.flavor("pods-a100", SimNode.A100, "on-demand", List.of())).create();
    operator = RunningOperator.startNew(plane.kubeconfig(), false);
    Namespaces.ensure(admin, "pods-probe");
    // The API server calls newly registered webhooks only after a moment.
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(
            () ->
                gated(
                    admin
                        .resource(gpuPod("pods-probe", "probe", "lq", 1, Map.of()))
                        .dryRun()
                        .create()));
  }

  @AfterAll
  static void tearDown() {
    if (operator != null) {
      operator.close();
    }
    if (webhooks != null) {
      webhooks.close();
    }
    if (plane != null) {
      plane.close();
    }
  }

  /** A pod of {@code gpus} GPUs labelled for LocalQueue {@code queue}. */
  private static Pod gpuPod(
      String namespace, String name, String queue, int gpus, Map<String, String> annotations) {
    return new PodBuilder()
        .withNewMetadata()
        .withNamespace(namespace)
        .withName(name)
        .addToLabels(Berth.QUEUE_NAME_LABEL, queue)
        .withAnnotations(new HashMap<>(annotations))
        .endMetadata()
        .withNewSpec()
        .withRestartPolicy("Never")
        .addNewContainer()
        .withName("c")
        .withImage("trainer")
        .withNewResources()
        .addToRequests(SimNode.GPU, new io.fabric8.kubernetes.api.model.Quantity("" + gpus))
        .addToLimits(SimNode.GPU, new io.fabric8.kubernetes.api.model.Quantity("" + gpus))
        .endResources()
        .endContainer()
        .endSpec()
        .build();
  }

  private static boolean gated(Pod pod) {
    return pod.getSpec().getSchedulingGates() != null
        && pod.getSpec().getSchedulingGates().stream()
            .anyMatch(g -> Berth.ADMISSION_SCHEDULING_GATE.equals(g.getName()));
  }

  private static Pod pod(Scenario s, String name) {
    return s.client.pods().inNamespace(s.namespace).withName(name).get();
  }

  private static boolean runningOnANode(Scenario s, String name) {
    Pod pod = pod(s, name);
    return pod != null
        && pod.getSpec().getNodeName() != null
        && "Running".equals(pod.getStatus().getPhase());
  }

  private static boolean quotaReserved(Scenario s, String name) {
    return s.condition(name, "QuotaReserved").map(c -> "True".equals(c.status)).orElse(false);
  }

  @Test
  void aLabelledPodWaitsGatedWithoutQuotaAndRunsOnceTheQuotaIsFree() {
    Scenario s = on.queue("pods-wait", "pods-h100", 8);
    on.awaitNodesFree(s, "h100");
    s.client
        .resource(gpuPod(s.namespace, "first", "lq", 8, Map.of(ControlPlane.RUN_FOR, "5s")))
        .create();
    s.client
        .resource(gpuPod(s.namespace, "second", "lq", 8, Map.of(ControlPlane.RUN_FOR, "3s")))
        .create();
    Pod second = pod(s, "second");
    assertThat(gated(second)).as("stored behind the admission gate").isTrue();
    assertThat(second.getMetadata().getLabels()).containsEntry(Berth.MANAGED_LABEL, "true");

    on.awaitOrDescribe(s, "first bound and Running", () -> runningOnANode(s, "first"));
    Pod first = pod(s, "first");
    assertThat(gated(first)).isFalse();
    assertThat(first.getSpec().getNodeSelector())
        .containsEntry(SimNode.GPU_PRODUCT, SimNode.H100)
        .containsEntry(SimNode.LIFECYCLE, "on-demand");
    assertThat(plane.nodeLabels(first)).containsEntry(SimNode.GPU_PRODUCT, SimNode.H100);
    Workload workload = s.workload("first").orElseThrow();
    assertThat(workload.getSpec().podSets)
        .singleElement()
        .satisfies(p -> assertThat(p.count).isEqualTo(1));
    // Its Workload waits for the quota the first one holds; the pod stays gated, never bound.
    on.awaitOrDescribe(s, "second's Workload pending", () -> s.workload("second").isPresent());
    assertThat(quotaReserved(s, "second")).isFalse();
    assertThat(gated(pod(s, "second"))).isTrue();
    assertThat(pod(s, "second").getSpec().getNodeName()).isNull();

    on.awaitFinished(s, "first");
    on.awaitOrDescribe(s, "second bound and Running", () -> runningOnANode(s, "second"));
    on.awaitFinished(s, "second");
  }

  /**
   * A queue of {@code gpus} A100 GPUs whose higher-priority workloads (WorkloadPriorityClass
   * pods-high) preempt lower ones (pods-low), its nodes free.
   */
  private static Scenario preemptingQueue(String name, int gpus) {
    on.priorityClass("pods-low", 10);
    on.priorityClass("pods-high", 1000);
    ClusterQueuePreemption preemption = new ClusterQueuePreemption();
    preemption.withinClusterQueue = ClusterQueuePreemption.WithinClusterQueue.LowerPriority;
    Scenario s = on.queue(name, "pods-a100", gpus, preemption);
    on.awaitNodesFree(s, "a100");
    return s;
  }

  /** The preemptor: a high-priority pod of 8 GPUs that runs for 3 s. */
  private static Pod preemptor(Scenario s, String name) {
    Pod high = gpuPod(s.namespace, name, "lq", 8, Map.of(ControlPlane.RUN_FOR, "3s"));
    high.getMetadata().getLabels().put(Berth.PRIORITY_CLASS_LABEL, "pods-high");
    // The label StopThenBind knows a preemptor's pods by (a Job's, here on a plain Pod).
    high.getMetadata().getLabels().put("batch.kubernetes.io/job-name", name);
    return high;
  }

  /** Pod {@code name} of group {@code group} of {@code total} pods of {@code gpus} GPUs each. */
  private static Pod groupPod(
      Scenario s, String group, String name, int total, int gpus, Map<String, String> more) {
    Map<String, String> annotations = new HashMap<>(more);
    annotations.put(Berth.POD_GROUP_TOTAL_COUNT_ANNOTATION, Integer.toString(total));
    Pod pod = gpuPod(s.namespace, name, "lq", gpus, annotations);
    pod.getMetadata().getLabels().put(Berth.POD_GROUP_NAME_LABEL, group);
    return pod;
  }

  private static Workload groupWorkload(Scenario s, String group) {
    return s.client.resources(Workload.class).inNamespace(s.namespace).withName(group).get();
  }

  @Test
  void aPodGroupIsOneWorkloadAdmittedWholeOnceAllItsPodsExist() {
    Scenario s = on.queue("pods-group", "pods-h100", 16);
    on.awaitNodesFree(s, "h100");
    Map<String, String> runFor = Map.of(ControlPlane.RUN_FOR, "4s");
    s.client.resource(groupPod(s, "trio", "trio-0", 3, 4, runFor)).create();
    s.client.resource(groupPod(s, "trio", "trio-1", 3, 4, runFor)).create();
    assertThat(gated(pod(s, "trio-0"))).isTrue();
    assertThat(gated(pod(s, "trio-1"))).isTrue();
    s.client.resource(groupPod(s, "trio", "trio-2", 3, 4, runFor)).create();

    on.awaitOrDescribe(
        s,
        "the group's 3 pods bound and Running",
        () -> List.of("trio-0", "trio-1", "trio-2").stream().allMatch(n -> runningOnANode(s, n)));
    Workload workload = groupWorkload(s, "trio");
    assertThat(workload.getSpec().podSets)
        .singleElement()
        .satisfies(p -> assertThat(p.count).isEqualTo(3));
    assertThat(workload.getMetadata().getOwnerReferences())
        .extracting(o -> o.getName())
        .containsExactlyInAnyOrder("trio-0", "trio-1", "trio-2");
    assertThat(List.of("trio-0", "trio-1", "trio-2"))
        .allSatisfy(
            n ->
                assertThat(pod(s, n).getSpec().getNodeSelector())
                    .containsEntry(SimNode.GPU_PRODUCT, SimNode.H100));
    // Finished once all three have succeeded.
    on.awaitOrDescribe(
        s,
        "Workload trio Finished",
        () ->
            groupWorkload(s, "trio").getStatus().conditions.stream()
                .anyMatch(c -> c.type.equals("Finished") && "True".equals(c.status)));
  }

  @Test
  void aPodGroupLargerThanItsQueueGetsNoPodRunning() {
    Scenario s = on.queue("pods-toobig", "pods-a100", 8);
    for (int i = 0; i < 3; i++) {
      s.client.resource(groupPod(s, "toobig", "toobig-" + i, 3, 4, Map.of())).create();
    }
    // Its Workload asks for 12 GPUs of an 8-GPU queue: 2 of its pods would fit, none may run.
    on.awaitOrDescribe(
        s,
        "Workload toobig pending without quota",
        () -> {
          Workload w = groupWorkload(s, "toobig");
          return w != null
              && w.getStatus() != null
              && w.getStatus().conditions != null
              && w.getStatus().conditions.stream()
                  .anyMatch(c -> c.type.equals("QuotaReserved") && "False".equals(c.status));
        });
    assertThat(List.of("toobig-0", "toobig-1", "toobig-2"))
        .allSatisfy(
            n -> {
              assertThat(gated(pod(s, n))).as(n).isTrue();
              assertThat(pod(s, n).getSpec().getNodeName()).as(n).isNull();
            });
    // Deleting the group's pods takes its Workload with them.
    s.client
        .pods()
        .inNamespace(s.namespace)
        .withLabel(Berth.POD_GROUP_NAME_LABEL, "toobig")
        .delete();
    on.awaitOrDescribe(s, "Workload toobig gone", () -> groupWorkload(s, "toobig") == null);
  }

  @Test
  void aPreemptedPodGroupLosesAllItsPodsBeforeThePreemptorIsBound() {
    Scenario s = preemptingQueue("pods-group-preempt", 16);
    for (int i = 0; i < 2; i++) {
      Pod member = groupPod(s, "duo", "duo-" + i, 2, 8, Map.of());
      member.getMetadata().getLabels().put(Berth.PRIORITY_CLASS_LABEL, "pods-low");
      member.getMetadata().getLabels().put("app", "victim");
      s.client.resource(member).create();
    }
    on.awaitOrDescribe(
        s, "duo bound and Running", () -> runningOnANode(s, "duo-0") && runningOnANode(s, "duo-1"));

    Pod high = preemptor(s, "urgent");
    try (OnPlane.StopThenBind order =
        new OnPlane.StopThenBind(s.client, s.namespace, "app", "victim", 2, "urgent")) {
      s.client.resource(high).create();
      on.awaitOrDescribe(s, "urgent bound and Running", () -> runningOnANode(s, "urgent"));
      // Both of the group's pods were deleted, though one GPU node would have been enough.
      assertThat(pod(s, "duo-0")).isNull();
      assertThat(pod(s, "duo-1")).isNull();
      assertThat(groupWorkload(s, "duo")).isNull();
      await().atMost(Duration.ofSeconds(10)).until(() -> order.order.size() == 2);
      assertThat(order.order).containsExactly("victim stopped", "preemptor bound");
    }
    on.awaitFinished(s, "urgent");
  }

  @Test
  void anEvictedPodIsDeletedAndThePreemptorIsBoundOnlyOnceItIsGone() {
    Scenario s = preemptingQueue("pods-preempt", 8);
    Pod low = gpuPod(s.namespace, "low", "lq", 8, Map.of());
    low.getMetadata().getLabels().put(Berth.PRIORITY_CLASS_LABEL, "pods-low");
    low.getMetadata().getLabels().put("app", "victim");
    s.client.resource(low).create();
    on.awaitOrDescribe(s, "low bound and Running", () -> runningOnANode(s, "low"));
    String lowWorkload = s.workload("low").orElseThrow().getMetadata().getName();

    Pod high = preemptor(s, "high");
    try (OnPlane.StopThenBind order =
        new OnPlane.StopThenBind(s.client, s.namespace, "app", "victim", 1, "high")) {
      s.client.resource(high).create();
      on.awaitOrDescribe(s, "high bound and Running", () -> runningOnANode(s, "high"));
      // The victim pod was deleted (a pod cannot be suspended) and is gone; its Workload with it.
      assertThat(pod(s, "low")).isNull();
      assertThat(
              s.client
                  .resources(Workload.class)
                  .inNamespace(s.namespace)
                  .withName(lowWorkload)
                  .get())
          .isNull();
      await().atMost(Duration.ofSeconds(10)).until(() -> order.order.size() == 2);
      assertThat(order.order).containsExactly("victim stopped", "preemptor bound");
    }
    on.awaitFinished(s, "high");
  }
}
