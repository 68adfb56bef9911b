package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.berth.api.v1beta1.Berth;
import dev.berth.api.v1beta1.ClusterQueue;
import dev.berth.api.v1beta1.ClusterQueuePreemption;
import dev.berth.api.v1beta1.Topology;
import dev.berth.api.v1beta1.TopologySpec;
import dev.berth.api.v1beta1.Workload;
import dev.berth.e2e.plane.ControlPlane;
import dev.berth.e2e.plane.SimNode;
import dev.berth.e2e.plane.ThirdParty;
import dev.berth.local.LoopbackWebhooks;
import dev.berth.local.LwsController;
import dev.berth.operator.BerthOperator;
import dev.berth.webhook.WebhookRuntime;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * LeaderWorkerSets (the {@code leaderworkerset.x-k8s.io/leaderworkerset} integration, on with
 * {@code pod}) on a whole control plane with the real LWS v0.10.0 controller making each group's
 * leader and worker StatefulSets, kube-controller-manager's StatefulSet controller their pods, the
 * chart's webhooks gating each pod into its replica group's pod group, the operator admitting each
 * group whole, kube-scheduler binding and KWOK running the released pods. One plane for the class.
 *
 * <p>The one end-to-end class that may skip: the LWS module is not served by the Go proxy, so on a
 * machine without ../shared/third-party (its source tarball) there is no controller to run.
 */
class LeaderWorkerSetE2EIT {
  private static final String MEMBER = "lee";
  private static final String LWS_API = "leaderworkerset.x-k8s.io/v1";
  private static final String LWS_KIND = "LeaderWorkerSet";

  private static ControlPlane plane;
  private static OnPlane on;
  private static WebhookRuntime webhooks;
  private static BerthOperator operator;

  @BeforeAll
  static void setUp() throws Exception {
    if (!ThirdParty.present() && !LwsController.built()) {
      String why =
          "SKIPPED: no LeaderWorkerSet source at "
              + ControlPlane.lwsTarball()
              + " (the LWS module is not on the Go proxy): LeaderWorkerSetE2EIT needs the real"
              + " LWS v"
              + LwsController.VERSION
              + " controller, which scripts/lws-binary.sh builds from it";
      System.out.println("[berth-test] " + "*".repeat(90));
      System.out.println("[berth-test] " + why);
      System.out.println("[berth-test] " + "*".repeat(90));
      Assumptions.abort(why);
    }
    plane =
        ControlPlane.startWithLeaderWorkerSet("leaderworkersets", ControlPlane.gpuFleet())
            .orElse(null);
    Assumptions.assumeTrue(
        plane != null, "SKIPPED: no LeaderWorkerSet source at " + ControlPlane.lwsTarball());
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
            "integrations.frameworks={batch/job,pod,leaderworkerset.x-k8s.io/leaderworkerset}");
    // The H100 nodes, one rack each, as a Topology: a group asking for one rack gets one.
    Topology topology = new Topology();
    topology.getMetadata().setName("lws-racks");
    topology.setSpec(new TopologySpec());
    topology.getSpec().levels =
        List.of(
            new TopologySpec.TopologyLevel(SimNode.RACK),
            new TopologySpec.TopologyLevel(SimNode.HOSTNAME));
    admin.resource(topology).create();
    var h100 = on.flavor("lws-h100", SimNode.H100, "on-demand", List.of());
    h100.getSpec().topologyName = "lws-racks";
    admin.resource(h100).create();
    admin.resource(on.flavor("lws-a100", SimNode.A100, "on-demand", List.of())).create();
    on.priorityClass("lws-low", 10);
    on.priorityClass("lws-high", 1000);
    operator = RunningOperator.startNew(plane.kubeconfig(), false);
    Scenario probe = on.queue("lws-probe", "lws-h100", 1);
    // The API server calls newly registered webhooks only after a moment.
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(
            () -> {
              GenericKubernetesResource dry =
                  probe
                      .client
                      .resource(
                          lws(probe.namespace, "probe", 1, 2, 1, "berth.dev/queue-name: lq", ""))
                      .dryRun()
                      .create();
              JsonNode template = Serialization.jsonMapper().valueToTree(dry);
              return "lq"
                  .equals(
                      template
                          .at("/spec/leaderWorkerTemplate/workerTemplate/metadata/labels")
                          .path(Berth.QUEUE_NAME_LABEL)
                          .asText());
            });
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

  /**
   * A LeaderWorkerSet {@code name} of {@code replicas} groups of {@code size} pods (a leader and
   * {@code size - 1} workers) of {@code gpus} GPUs each, its pods labelled {@code app: name}.
   */
  private static GenericKubernetesResource lws(
      String namespace,
      String name,
      int replicas,
      int size,
      int gpus,
      String labels,
      String workerAnnotations) {
    return Serialization.unmarshal(
        """
        apiVersion: leaderworkerset.x-k8s.io/v1
        kind: LeaderWorkerSet
        metadata: {name: %s, namespace: %s, labels: {%s}}
        spec:
          replicas: %d
          leaderWorkerTemplate:
            size: %d
            leaderTemplate:
              metadata: {labels: {app: %s}}
              spec:
                terminationGracePeriodSeconds: 0
                containers:
                - name: server
                  image: server
                  resources: {limits: {nvidia.com/gpu: "%d"}}
            workerTemplate:
              metadata: {labels: {app: %s}, annotations: {%s}}
              spec:
                terminationGracePeriodSeconds: 0
                containers:
                - name: shard
                  image: shard
                  resources: {limits: {nvidia.com/gpu: "%d"}}
        """
            .formatted(
                name, namespace, labels, replicas, size, name, gpus, name, workerAnnotations, gpus),
        GenericKubernetesResource.class);
  }

  private static void patchLws(KubernetesClient client, String ns, String name, String json) {
    client
        .genericKubernetesResources(LWS_API, LWS_KIND)
        .inNamespace(ns)
        .withName(name)
        .patch(PatchContext.of(PatchType.JSON_MERGE), json);
  }

  private static List<Pod> pods(Scenario s, String app) {
    return s.client.pods().inNamespace(s.namespace).withLabel("app", app).list().getItems();
  }

  private static List<Pod> groupPods(Scenario s, String app, int group) {
    return pods(s, app).stream()
        .filter(
            p ->
                Integer.toString(group)
                    .equals(
                        p.getMetadata().getLabels().get("leaderworkerset.sigs.k8s.io/group-index")))
        .toList();
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

  private static Workload workload(Scenario s, String name) {
    return s.client.resources(Workload.class).inNamespace(s.namespace).withName(name).get();
  }

  private static boolean quotaReserved(Workload w) {
    return w != null
        && w.getStatus() != null
        && w.getStatus().conditions != null
        && w.getStatus().conditions.stream()
            .anyMatch(c -> "QuotaReserved".equals(c.type) && "True".equals(c.status));
  }

  private static void setQuota(Scenario s, int gpus) {
    s.client
        .resources(ClusterQueue.class)
        .withName(s.namespace)
        .edit(
            cq -> {
              ScenarioObjects.quota(cq).nominalQuota = new Quantity(Integer.toString(gpus));
              return cq;
            });
  }

  /**
   * A group of 3 × 2 GPUs waits whole in a 4-GPU queue (no pod bound), and runs whole once the
   * queue has 6, all in one rack; one group more (replicas 2) queues its own Workload and waits;
   * scaled back to one group, the waiting group's pods and Workload are gone.
   */
  @Test
  void aGroupWaitsUntilItFitsWholeRunsInOneRackAndAScaledUpGroupQueues() {
    Scenario s = on.queue("lws-whole", "lws-h100", 4);
    s.client
        .resource(
            lws(
                s.namespace,
                "chat",
                1,
                3,
                2,
                "berth.dev/queue-name: lq, " + Berth.PRIORITY_CLASS_LABEL + ": lws-high",
                Berth.PODSET_REQUIRED_TOPOLOGY + ": " + SimNode.RACK))
        .create();
    on.awaitOrDescribe(
        s,
        "the group's 3 pods gated and its Workload",
        () ->
            pods(s, "chat").size() == 3
                && pods(s, "chat").stream().allMatch(LeaderWorkerSetE2EIT::gated)
                && workload(s, "leaderworkerset-chat-0") != null);
    Workload group = workload(s, "leaderworkerset-chat-0");
    assertThat(group.getSpec().podSets)
        .extracting(p -> p.name + "=" + p.count)
        .containsExactly("leader=1", "worker=2");
    assertThat(group.getSpec().podSets)
        .allSatisfy(
            p -> {
              assertThat(p.topologyRequest.required).isEqualTo(SimNode.RACK);
              assertThat(p.topologyRequest.podSetGroupName).isEqualTo("replica-group");
            });
    assertThat(group.getSpec().priority).as("the LWS's priority class").isEqualTo(1000);
    await("the group waits whole in the 4-GPU queue")
        .during(Duration.ofSeconds(4))
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                pods(s, "chat").stream().noneMatch(p -> p.getSpec().getNodeName() != null)
                    && !quotaReserved(workload(s, "leaderworkerset-chat-0")));

    setQuota(s, 6);
    on.awaitOrDescribe(
        s,
        "the group's 3 pods running",
        () -> pods(s, "chat").stream().filter(LeaderWorkerSetE2EIT::running).count() == 3);
    Set<String> racks =
        pods(s, "chat").stream()
            .map(p -> plane.nodeLabels(p).get(SimNode.RACK))
            .collect(Collectors.toSet());
    assertThat(racks).as("the whole group in one rack").hasSize(1);

    patchLws(s.client, s.namespace, "chat", "{\"spec\": {\"replicas\": 2}}");
    on.awaitOrDescribe(
        s,
        "group 1's 3 pods gated and its Workload",
        () ->
            groupPods(s, "chat", 1).size() == 3
                && groupPods(s, "chat", 1).stream().allMatch(LeaderWorkerSetE2EIT::gated)
                && workload(s, "leaderworkerset-chat-1") != null);
    await("the new group waits: the queue holds one")
        .during(Duration.ofSeconds(3))
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                !quotaReserved(workload(s, "leaderworkerset-chat-1"))
                    && groupPods(s, "chat", 1).stream()
                        .noneMatch(p -> p.getSpec().getNodeName() != null));

    patchLws(s.client, s.namespace, "chat", "{\"spec\": {\"replicas\": 1}}");
    on.awaitOrDescribe(
        s,
        "group 1's pods and Workload gone, group 0 still running",
        () ->
            groupPods(s, "chat", 1).isEmpty()
                && workload(s, "leaderworkerset-chat-1") == null
                && groupPods(s, "chat", 0).stream().filter(LeaderWorkerSetE2EIT::running).count()
                    == 3);
    s.client
        .genericKubernetesResources(LWS_API, LWS_KIND)
        .inNamespace(s.namespace)
        .withName("chat")
        .delete();
  }

  /**
   * A higher-priority Job preempts a running group: every pod of the group is gone before the Job's
   * pod is bound; the LWS makes the group anew, which queues again and runs once the Job is done.
   */
  @Test
  void aPreemptedGroupLosesEveryPodBeforeThePreemptorIsBoundAndComesBackAfter() {
    ClusterQueuePreemption preemption = new ClusterQueuePreemption();
    preemption.withinClusterQueue = ClusterQueuePreemption.WithinClusterQueue.LowerPriority;
    Scenario s = on.queue("lws-preempt", "lws-a100", 8, preemption);
    on.awaitNodesFree(s, "a100");
    GenericKubernetesResource victim =
        lws(
            s.namespace,
            "batchy",
            1,
            3,
            2,
            "berth.dev/queue-name: lq, " + Berth.PRIORITY_CLASS_LABEL + ": lws-low",
            "");
    s.client.resource(victim).create();
    on.awaitOrDescribe(
        s,
        "the group's 3 pods running",
        () -> pods(s, "batchy").stream().filter(LeaderWorkerSetE2EIT::running).count() == 3);

    Job urgent = OnPlane.gpuJob(s, "urgent", 1, ControlPlane.RUN_FOR, "8s");
    Map<String, String> labels = new HashMap<>(urgent.getMetadata().getLabels());
    labels.put(Berth.PRIORITY_CLASS_LABEL, "lws-high");
    urgent.getMetadata().setLabels(labels);
    try (OnPlane.StopThenBind order =
        new OnPlane.StopThenBind(s.client, s.namespace, "app", "batchy", 3, "urgent")) {
      s.client.resource(urgent).create();
      on.runningPods(s, "urgent", 1);
      await().atMost(Duration.ofSeconds(10)).until(() -> order.order.size() == 2);
      assertThat(order.order).containsExactly("victim stopped", "preemptor bound");
    }
    // The LWS controller made the group's pods again: they wait for the quota the Job holds.
    await("the group made anew and waiting")
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                s.job("urgent").getStatus().getSucceeded() != null
                    || (pods(s, "batchy").size() == 3
                        && pods(s, "batchy").stream().allMatch(LeaderWorkerSetE2EIT::gated)));
    on.awaitJobCondition(s, "urgent", "Complete");
    on.awaitOrDescribe(
        s,
        "the group running again",
        () -> pods(s, "batchy").stream().filter(LeaderWorkerSetE2EIT::running).count() == 3);
  }

  /**
   * As a team member with {@code edit}, the chart's roles and LWS's own editor role: an unqueued
   * GPU LeaderWorkerSet is refused naming the label; a queued one cannot lose its queue, change its
   * group size or its pods' requests, nor use LeaderReady; its gated pods cannot be released or
   * moved to another podSet by hand. All DENIED by the chart's rendered webhooks.
   */
  @Test
  void aTeamMembersBypassesAreDenied() throws Exception {
    Scenario s = on.queue("lws-member", "lws-a100", 1);
    TeamMemberRoles.bind(plane.client(), MEMBER, s.namespace);
    // LWS's own installation grants its users leaderworkersets (its leaderworkerset-editor-role,
    // not aggregated to edit); this cluster has only its CRD.
    plane
        .client()
        .rbac()
        .clusterRoles()
        .resource(
            new ClusterRoleBuilder()
                .withNewMetadata()
                .withName("leaderworkerset-editor-role")
                .endMetadata()
                .addNewRule()
                .withApiGroups("leaderworkerset.x-k8s.io")
                .withResources("leaderworkersets")
                .withVerbs("create", "delete", "get", "list", "patch", "update", "watch")
                .endRule()
                .build())
        .serverSideApply();
    TeamMemberRoles.bindRole(plane.client(), MEMBER, s.namespace, "leaderworkerset-editor-role");
    try (KubernetesClient member =
        new KubernetesClientBuilder()
            .withConfig(
                new ConfigBuilder(plane.client().getConfiguration())
                    .withImpersonateUsername(MEMBER)
                    .withImpersonateGroups("system:authenticated")
                    .build())
            .build()) {
      assertThatThrownBy(
              () -> member.resource(lws(s.namespace, "bare", 1, 2, 1, "app: bare", "")).create())
          .isInstanceOf(KubernetesClientException.class)
          .hasMessageContaining("metadata.labels[berth.dev/queue-name]")
          .hasMessageContaining("LocalQueues (lq)");

      GenericKubernetesResource leaderReady =
          lws(s.namespace, "ready", 1, 2, 1, "berth.dev/queue-name: lq", "");
      @SuppressWarnings("unchecked")
      Map<String, Object> spec =
          (Map<String, Object>) leaderReady.getAdditionalProperties().get("spec");
      spec.put("startupPolicy", "LeaderReady");
      assertThatThrownBy(() -> member.resource(leaderReady).create())
          .isInstanceOf(KubernetesClientException.class)
          .hasMessageContaining("spec.startupPolicy");

      // Two pods of 1 GPU in a 1-GPU queue: queued, never admitted.
      member.resource(lws(s.namespace, "pair", 1, 2, 1, "berth.dev/queue-name: lq", "")).create();
      on.awaitOrDescribe(
          s,
          "pair's 2 pods gated",
          () ->
              pods(s, "pair").size() == 2
                  && pods(s, "pair").stream().allMatch(LeaderWorkerSetE2EIT::gated));
      for (String[] denied :
          new String[][] {
            {
              "{\"metadata\": {\"labels\": {\"berth.dev/queue-name\": null}}}",
              "metadata.labels[berth.dev/queue-name]"
            },
            {
              "{\"spec\": {\"leaderWorkerTemplate\": {\"size\": 1}}}",
              "spec.leaderWorkerTemplate.size"
            },
          }) {
        assertThatThrownBy(() -> patchLws(member, s.namespace, "pair", denied[0]))
            .as(denied[0])
            .isInstanceOf(KubernetesClientException.class)
            .hasMessageContaining(denied[1]);
      }
      assertThatThrownBy(
              () ->
                  member
                      .genericKubernetesResources(LWS_API, LWS_KIND)
                      .inNamespace(s.namespace)
                      .withName("pair")
                      .patch(
                          PatchContext.of(PatchType.JSON),
                          "[{\"op\": \"replace\", \"path\":"
                              + " \"/spec/leaderWorkerTemplate/workerTemplate/spec/containers/0/resources/limits/nvidia.com~1gpu\","
                              + " \"value\": \"8\"}]"))
          .isInstanceOf(KubernetesClientException.class)
          .hasMessageContaining(
              "spec.leaderWorkerTemplate.workerTemplate.spec.containers[0].resources");

      Pod waiting = pods(s, "pair").get(0);
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
      assertThatThrownBy(
              () ->
                  member
                      .pods()
                      .inNamespace(s.namespace)
                      .withName(waiting.getMetadata().getName())
                      .edit(
                          p -> {
                            Map<String, String> annotations =
                                new HashMap<>(p.getMetadata().getAnnotations());
                            annotations.put(Berth.POD_GROUP_ROLE_ANNOTATION, "other");
                            p.getMetadata().setAnnotations(annotations);
                            return p;
                          }))
          .isInstanceOf(KubernetesClientException.class)
          .hasMessageContaining("metadata.annotations[berth.dev/pod-group-role]");
      // Scaling is the one change a queued LWS takes: the new group queues like the first.
      patchLws(member, s.namespace, "pair", "{\"spec\": {\"replicas\": 2}}");
      on.awaitOrDescribe(
          s,
          "pair's 4 pods gated, none bound",
          () ->
              pods(s, "pair").size() == 4
                  && pods(s, "pair").stream().allMatch(LeaderWorkerSetE2EIT::gated));
    }
  }

  /** samples/leaderworkerset, in a queue of its own: both groups run, each in one rack. */
  @Test
  void theServingSampleRunsEachGroupWholeInOneRack() throws Exception {
    Scenario s = on.queue("lws-sample", "lws-h100", 8);
    Path file =
        Path.of(
            System.getProperty("berth.repo"),
            "samples",
            "leaderworkerset",
            "30-lws-llm-serving.yaml");
    GenericKubernetesResource sample =
        Serialization.unmarshal(Files.readString(file), GenericKubernetesResource.class);
    sample.getMetadata().setNamespace(s.namespace);
    sample.getMetadata().setLabels(Map.of(Berth.QUEUE_NAME_LABEL, "lq"));
    // The queue here covers GPUs only: the sample's CPU and memory requests are left out.
    ObjectNode tree = Serialization.jsonMapper().valueToTree(sample);
    for (String template : List.of("leaderTemplate", "workerTemplate")) {
      for (JsonNode container :
          tree.at("/spec/leaderWorkerTemplate/" + template + "/spec/containers")) {
        ((ObjectNode) container.path("resources")).remove("requests");
      }
    }
    s.client
        .resource(Serialization.jsonMapper().treeToValue(tree, GenericKubernetesResource.class))
        .create();
    on.awaitOrDescribe(
        s,
        "the sample's 4 pods running",
        () ->
            s.client.pods().inNamespace(s.namespace).list().getItems().stream()
                    .filter(LeaderWorkerSetE2EIT::running)
                    .count()
                == 4);
    for (int group = 0; group < 2; group++) {
      String index = Integer.toString(group);
      Set<String> racks =
          s.client.pods().inNamespace(s.namespace).list().getItems().stream()
              .filter(
                  p ->
                      index.equals(
                          p.getMetadata()
                              .getLabels()
                              .get("leaderworkerset.sigs.k8s.io/group-index")))
              .map(p -> plane.nodeLabels(p).get(SimNode.RACK))
              .collect(Collectors.toSet());
      assertThat(racks).as("group " + group + " in one rack").hasSize(1);
    }
  }
}
