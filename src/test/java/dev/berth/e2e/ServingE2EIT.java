package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.berth.api.v1beta1.Berth;
import dev.berth.api.v1beta1.Workload;
import dev.berth.e2e.plane.ControlPlane;
import dev.berth.e2e.plane.SimNode;
import dev.berth.local.LoopbackWebhooks;
import dev.berth.operator.BerthOperator;
import dev.berth.webhook.WebhookRuntime;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Deployments and StatefulSets for serving (the {@code deployment} and {@code statefulset}
 * integrations, on with {@code pod}) on a whole control plane: kube-controller-manager's
 * Deployment, ReplicaSet and StatefulSet controllers make the pods, Berth's chart webhooks gate
 * each one, the operator admits each Deployment pod as a plain Pod, and a StatefulSet's pods as one
 * group, against the ClusterQueue; kube-scheduler binds the released ones and KWOK runs them.
 * Scale-up's pods wait in the queue; scale-down deletes pods and gives their quota back; a
 * StatefulSet runs whole or not at all.
 */
class ServingE2EIT {
  private static final String MEMBER = "sam";

  private static ControlPlane plane;
  private static OnPlane on;
  private static WebhookRuntime webhooks;
  private static BerthOperator operator;

  @BeforeAll
  static void setUp() throws Exception {
    plane = ControlPlane.start("deployments", ControlPlane.gpuFleet());
    on = new OnPlane(plane);
    var admin = plane.client();
    Namespaces.ensure(admin, "berth-system");
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    webhooks =
        LoopbackWebhooks.start(
            admin,
            "kubeapitest",
            port,
            "integrations.frameworks={batch/job,pod,deployment,statefulset}");
    admin.resource(on.flavor("serve-h100", SimNode.H100, "on-demand", List.of())).create();
    on.priorityClass("serving", 500);
    operator = RunningOperator.startNew(plane.kubeconfig(), false);
    Scenario probe = on.queue("serve-probe", "serve-h100", 1);
    // The API server calls newly registered webhooks only after a moment.
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(
            () ->
                probe
                    .client
                    .resource(deployment(probe.namespace, "probe", 1, "", 1))
                    .dryRun()
                    .create()
                    .getSpec()
                    .getTemplate()
                    .getMetadata()
                    .getLabels()
                    .containsKey(Berth.QUEUE_NAME_LABEL));
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

  /** A Deployment {@code name} of {@code replicas} pods of {@code gpus} GPUs, with these labels. */
  private static Deployment deployment(
      String namespace, String name, int replicas, String labels, int gpus) {
    return serving(
        "Deployment",
        namespace,
        name,
        replicas,
        labels.isEmpty() ? "berth.dev/queue-name: lq" : labels,
        gpus,
        Deployment.class);
  }

  /**
   * A serving {@code kind} {@code name} of {@code replicas} pods of {@code gpus} GPUs each,
   * labelled {@code app: name}, with these labels of its own.
   */
  private static <T> T serving(
      String kind,
      String namespace,
      String name,
      int replicas,
      String labels,
      int gpus,
      Class<T> type) {
    return Serialization.unmarshal(
        """
        apiVersion: apps/v1
        kind: %s
        metadata: {name: %s, namespace: %s, labels: {%s}}
        spec:
          replicas: %d
          selector: {matchLabels: {app: %s}}
          template:
            metadata: {labels: {app: %s}}
            spec:
              terminationGracePeriodSeconds: 0
              containers:
              - name: server
                image: server
                resources: {limits: {nvidia.com/gpu: "%d"}}
        """
            .formatted(kind, name, namespace, labels, replicas, name, name, gpus),
        type);
  }

  /** Scales Deployment {@code name} to {@code replicas}, as {@code client}. */
  private static void scale(KubernetesClient client, String namespace, String name, int replicas) {
    client
        .apps()
        .deployments()
        .inNamespace(namespace)
        .withName(name)
        .patch(
            PatchContext.of(PatchType.JSON_MERGE), "{\"spec\": {\"replicas\": " + replicas + "}}");
  }

  /**
   * Waits until {@code app} has {@code total} pods, {@code running} of them running, {@code gated}
   * gated.
   */
  private static void awaitPods(Scenario s, String app, int total, int running, int gated) {
    on.awaitOrDescribe(
        s,
        total + " pods of " + app + ": " + running + " running, " + gated + " gated",
        () -> {
          List<Pod> pods = pods(s, app);
          return pods.size() == total
              && count(pods, ServingE2EIT::running) == running
              && count(pods, ServingE2EIT::gated) == gated;
        });
  }

  private static List<Pod> pods(Scenario s, String app) {
    return s.client.pods().inNamespace(s.namespace).withLabel("app", app).list().getItems();
  }

  private static boolean gated(Pod pod) {
    return pod.getSpec().getSchedulingGates() != null
        && pod.getSpec().getSchedulingGates().stream()
            .anyMatch(g -> Berth.ADMISSION_SCHEDULING_GATE.equals(g.getName()));
  }

  private static boolean running(Pod pod) {
    return pod.getMetadata().getDeletionTimestamp() == null
        && pod.getSpec().getNodeName() != null
        && "Running".equals(pod.getStatus().getPhase());
  }

  private static long count(List<Pod> pods, java.util.function.Predicate<Pod> which) {
    return pods.stream().filter(which).count();
  }

  /** The namespace's Workloads holding quota (QuotaReserved and not finished). */
  private static long reserving(Scenario s) {
    return s.client.resources(Workload.class).inNamespace(s.namespace).list().getItems().stream()
        .filter(w -> w.getStatus() != null && w.getStatus().conditions != null)
        .filter(
            w ->
                w.getStatus().conditions.stream()
                        .anyMatch(c -> "QuotaReserved".equals(c.type) && "True".equals(c.status))
                    && w.getStatus().conditions.stream()
                        .noneMatch(c -> "Finished".equals(c.type) && "True".equals(c.status)))
        .count();
  }

  @Test
  void fourOneGpuPodsInATwoGpuQueueRunTwoAndQueueTwoAndScalingDownLeavesNoneWaiting() {
    Scenario s = on.queue("serve-four", "serve-h100", 2);
    s.client
        .resource(
            deployment(
                s.namespace,
                "web",
                4,
                "berth.dev/queue-name: lq, " + Berth.PRIORITY_CLASS_LABEL + ": serving",
                1))
        .create();
    awaitPods(s, "web", 4, 2, 2);
    List<Pod> pods = pods(s, "web");
    for (Pod pod : pods) {
      assertThat(pod.getMetadata().getLabels())
          .containsEntry(Berth.QUEUE_NAME_LABEL, "lq")
          .containsEntry(Berth.MANAGED_LABEL, "true");
      assertThat(pod.getMetadata().getOwnerReferences())
          .singleElement()
          .satisfies(o -> assertThat(o.getKind()).isEqualTo("ReplicaSet"));
    }
    List<Workload> workloads =
        s.client.resources(Workload.class).inNamespace(s.namespace).list().getItems();
    assertThat(workloads).as("one Workload per pod").hasSize(4);
    assertThat(workloads)
        .allSatisfy(
            w -> {
              assertThat(w.getSpec().priority).as("the Deployment's priority class").isEqualTo(500);
              assertThat(w.getSpec().podSets)
                  .singleElement()
                  .satisfies(p -> assertThat(p.count).isEqualTo(1));
            });
    assertThat(reserving(s)).isEqualTo(2);

    scale(s.client, s.namespace, "web", 2);
    // The ReplicaSet deletes unscheduled pods first: the two waiting ones.
    awaitPods(s, "web", 2, 2, 0);
    await("the deleted pods' Workloads are gone")
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                s.client.resources(Workload.class).inNamespace(s.namespace).list().getItems().size()
                    == 2);
    assertThat(reserving(s)).isEqualTo(2);

    // Down to one: the running pod deleted gives its GPU back, which a new Deployment's pod takes.
    scale(s.client, s.namespace, "web", 1);
    s.client.resource(deployment(s.namespace, "next", 1, "", 1)).create();
    on.awaitOrDescribe(
        s,
        "the freed GPU runs Deployment next's pod",
        () -> pods(s, "web").size() == 1 && count(pods(s, "next"), ServingE2EIT::running) == 1);
    assertThat(reserving(s)).isEqualTo(2);
  }

  /**
   * A team member with {@code edit} and the chart's roles scales a queued Deployment from 1 to 8 in
   * a 2-GPU queue: the new pods are created, and wait behind the gate; never more than the quota
   * runs.
   */
  @Test
  void aTeamMemberScalingFromOneToEightGetsTheNewPodsQueued() {
    Scenario s = on.queue("serve-scale", "serve-h100", 2);
    TeamMemberRoles.bind(plane.client(), MEMBER, s.namespace);
    try (KubernetesClient member =
        new KubernetesClientBuilder()
            .withConfig(
                new ConfigBuilder(plane.client().getConfiguration())
                    .withImpersonateUsername(MEMBER)
                    .withImpersonateGroups("system:authenticated")
                    .build())
            .build()) {
      member.resource(deployment(s.namespace, "chat", 1, "", 1)).create();
      on.awaitOrDescribe(
          s, "chat's pod running", () -> count(pods(s, "chat"), ServingE2EIT::running) == 1);
      scale(member, s.namespace, "chat", 8);
      awaitPods(s, "chat", 8, 2, 6);
      await("never more than the quota bound")
          .during(Duration.ofSeconds(5))
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  count(pods(s, "chat"), p -> p.getSpec().getNodeName() != null) == 2
                      && reserving(s) == 2);
      // The team member cannot release a waiting pod itself.
      Pod waiting = pods(s, "chat").stream().filter(ServingE2EIT::gated).findFirst().orElseThrow();
      assertThatThrownBy(
              () ->
                  member
                      .pods()
                      .inNamespace(s.namespace)
                      .withName(waiting.getMetadata().getName())
                      .edit(
                          p -> {
                            p.getSpec().setSchedulingGates(null);
                            return p;
                          }))
          .isInstanceOf(KubernetesClientException.class)
          .hasMessageContaining("spec.schedulingGates");
    }
  }

  /** A StatefulSet {@code name} of {@code replicas} pods of {@code gpus} GPUs, in queue lq. */
  private static StatefulSet statefulSet(String namespace, String name, int replicas, int gpus) {
    StatefulSet set =
        serving(
            "StatefulSet",
            namespace,
            name,
            replicas,
            "berth.dev/queue-name: lq",
            gpus,
            StatefulSet.class);
    set.getSpec().setServiceName(name);
    return set;
  }

  /**
   * A StatefulSet of 3 × 2 GPUs is one group: in a 4-GPU queue it waits whole (no pod bound, one
   * Workload not admitted), in a 6-GPU queue it runs whole; its replicas are fixed while queued.
   */
  @Test
  void aStatefulSetOfThreeTwoGpuPodsRunsOnlyWhole() {
    Scenario small = on.queue("serve-sts-small", "serve-h100", 4);
    small.client.resource(statefulSet(small.namespace, "db", 3, 2)).create();
    on.awaitOrDescribe(
        small,
        "3 pods of StatefulSet db, all gated, and its group's Workload",
        () -> {
          List<Pod> pods = pods(small, "db");
          return pods.size() == 3
              && count(pods, ServingE2EIT::gated) == 3
              && small
                      .client
                      .resources(Workload.class)
                      .inNamespace(small.namespace)
                      .list()
                      .getItems()
                      .size()
                  == 1;
        });
    Workload group =
        small
            .client
            .resources(Workload.class)
            .inNamespace(small.namespace)
            .list()
            .getItems()
            .get(0);
    assertThat(group.getMetadata().getName()).isEqualTo("statefulset-db");
    assertThat(group.getSpec().podSets)
        .singleElement()
        .satisfies(p -> assertThat(p.count).isEqualTo(3));
    await("the group stays whole and waiting in the 4-GPU queue")
        .during(Duration.ofSeconds(5))
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                count(pods(small, "db"), p -> p.getSpec().getNodeName() != null) == 0
                    && reserving(small) == 0);
    assertThatThrownBy(
            () ->
                small
                    .client
                    .apps()
                    .statefulSets()
                    .inNamespace(small.namespace)
                    .withName("db")
                    .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\": {\"replicas\": 2}}"))
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("spec.replicas")
        .hasMessageContaining("one pod group admitted whole");

    Scenario big = on.queue("serve-sts-big", "serve-h100", 6);
    big.client.resource(statefulSet(big.namespace, "db", 3, 2)).create();
    on.awaitOrDescribe(
        big,
        "all 3 pods of StatefulSet db running",
        () -> count(pods(big, "db"), ServingE2EIT::running) == 3);
    assertThat(reserving(big)).isEqualTo(1);
  }

  @Test
  void aGpuDeploymentWithoutAQueueIsRefusedAtCreationNamingTheLabelAndTheQueues() {
    Scenario s = on.queue("serve-refused", "serve-h100", 2);
    Deployment unqueued = deployment(s.namespace, "bare", 2, "app: bare", 1);
    assertThatThrownBy(() -> s.client.resource(unqueued).create())
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("spec.template.metadata.labels[berth.dev/queue-name]")
        .hasMessageContaining("LocalQueues (lq)");
    assertThat(s.client.apps().deployments().inNamespace(s.namespace).withName("bare").get())
        .isNull();
  }
}
