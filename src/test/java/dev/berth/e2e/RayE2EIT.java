package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.berth.api.v1beta1.Berth;
import dev.berth.api.v1beta1.ClusterQueue;
import dev.berth.api.v1beta1.ClusterQueuePreemption;
import dev.berth.api.v1beta1.Workload;
import dev.berth.e2e.plane.ControlPlane;
import dev.berth.e2e.plane.KubeRay;
import dev.berth.e2e.plane.SimNode;
import dev.berth.local.KubeRayOperator;
import dev.berth.local.LoopbackWebhooks;
import dev.berth.operator.BerthOperator;
import dev.berth.operator.integration.ray.RayCluster;
import dev.berth.operator.integration.ray.RayJob;
import dev.berth.testing.ClusterQueues;
import dev.berth.testing.Quota;
import dev.berth.webhook.WebhookRuntime;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * KubeRay's RayJob and RayCluster on a whole control plane with the real KubeRay operator
 * (scripts/kuberay-binary.sh, acting as its own service account), Berth's chart webhooks, the
 * operator, kube-scheduler, kube-controller-manager and KWOK's H100 nodes: a cluster that fits only
 * whole waits whole (its pending item in the visibility API naming it with KubeRay's state, {@code
 * suspended}), then KubeRay makes its pods; a RayJob is one Workload for its cluster and its
 * submitter Job, neither queued again; a RayJob that fits only whole waits, then runs and KubeRay
 * marks it Complete (its Ray job SUCCEEDED, as the stand-in Ray dashboard KubeRay polls reports it
 * from the submitter Job, since KWOK's pods run no Ray: docs/ray.md), or Failed when its submitter
 * fails, and either gives its quota back; a preempted cluster's pods are all gone before the
 * preemptor's pods are bound; and a team member's ways around the queue are denied.
 */
class RayE2EIT {
  private static final String MEMBER = "rey";
  private static final String FLAVOR = "ray-h100";

  private static ControlPlane plane;
  private static OnPlane on;
  private static KubeRayOperator kubeRay;
  private static WebhookRuntime webhooks;
  private static BerthOperator operator;

  /** The operator's visibility API (HTTPS, the test CA) and a token of a viewer of every queue. */
  private static int visibilityPort;

  private static String viewer;

  @BeforeAll
  static void setUp() throws Exception {
    plane = ControlPlane.start("ray", ControlPlane.gpuFleet());
    on = new OnPlane(plane);
    kubeRay = KubeRay.start(plane);
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
            "integrations.frameworks={batch/job,ray.io/rayjob,ray.io/raycluster}");
    admin.resource(on.flavor(FLAVOR, SimNode.H100, "on-demand", List.of())).create();
    on.priorityClass("ray-low", 100);
    on.priorityClass("ray-high", 1000);
    operator = RunningOperator.startNew(plane.kubeconfig(), false);
    visibilityPort = operator.serveHttps("127.0.0.1", 0, TestHttps.keys(), false);
    viewer = viewerToken(admin);
    Scenario probe = on.queue("ray-probe", FLAVOR, 1);
    // The API server calls newly registered webhooks only after a moment.
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(
            () ->
                Boolean.TRUE.equals(
                    probe
                        .client
                        .resource(cluster(probe.namespace, "probe", 1, "berth.dev/queue-name: lq"))
                        .dryRun()
                        .create()
                        .getSpec()
                        .suspend));
  }

  @AfterAll
  static void tearDown() {
    if (operator != null) {
      operator.close();
    }
    if (webhooks != null) {
      webhooks.close();
    }
    if (kubeRay != null) {
      kubeRay.close();
    }
    if (plane != null) {
      plane.close();
    }
  }

  /**
   * A namespace with LocalQueue "lq" on a ClusterQueue of {@code gpus} H100 GPUs, 64 CPUs and 512
   * GiB: a Ray cluster's Workload asks CPU and memory too (its head's, and the init container
   * KubeRay adds to each worker), which a GPU-only ClusterQueue does not cover.
   */
  private static Scenario rayQueue(String name, int gpus, ClusterQueuePreemption preemption) {
    Scenario s = new Scenario(plane.client(), name);
    ClusterQueue cq =
        ClusterQueues.named(name)
            .flavor(
                FLAVOR,
                Quota.quota("cpu", "64"),
                Quota.quota("memory", "512Gi"),
                Quota.gpu(Integer.toString(gpus)))
            .build();
    cq.getSpec().preemption = preemption;
    s.client.resource(cq).create();
    s.client.resource(ScenarioObjects.localQueue(name, "lq", name)).create();
    // The tests take turns on the two H100 nodes.
    on.awaitNodesFree(s, "h100-a");
    return s;
  }

  /** A ServiceAccount bound to cluster-admin, and a token of it for the visibility API. */
  private static String viewerToken(KubernetesClient admin) {
    admin
        .serviceAccounts()
        .inNamespace("berth-system")
        .resource(
            new ServiceAccountBuilder()
                .withNewMetadata()
                .withName("ray-viewer")
                .withNamespace("berth-system")
                .endMetadata()
                .build())
        .serverSideApply();
    admin
        .resource(
            new ClusterRoleBindingBuilder()
                .withNewMetadata()
                .withName("ray-viewer")
                .endMetadata()
                .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", "cluster-admin")
                .addNewSubject()
                .withKind("ServiceAccount")
                .withName("ray-viewer")
                .withNamespace("berth-system")
                .endSubject()
                .build())
        .serverSideApply();
    return admin
        .serviceAccounts()
        .inNamespace("berth-system")
        .withName("ray-viewer")
        .tokenRequest(
            new TokenRequestBuilder().withNewSpec().withExpirationSeconds(3600L).endSpec().build())
        .getStatus()
        .getToken();
  }

  /** The owners of ClusterQueue {@code cq}'s pending workloads, from the visibility API. */
  private static List<JsonNode> pendingOwners(String cq) throws Exception {
    HttpResponse<String> answer =
        TestHttps.client()
            .send(
                HttpRequest.newBuilder(
                        URI.create(
                            "https://127.0.0.1:"
                                + visibilityPort
                                + "/visibility/v1/clusterqueues/"
                                + cq
                                + "/pendingworkloads"))
                    .header("Authorization", "Bearer " + viewer)
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    List<JsonNode> owners = new java.util.ArrayList<>();
    new ObjectMapper()
        .readTree(answer.body())
        .path("items")
        .forEach(i -> owners.add(i.path("owner")));
    return owners;
  }

  /** Deletes RayCluster {@code name} and waits until KubeRay's pods of it are gone. */
  private static void deleteCluster(Scenario s, String name) {
    s.client.resource(storedCluster(s, name)).delete();
    on.awaitOrDescribe(s, "cluster " + name + "'s pods gone", () -> podsOf(s, name).isEmpty());
  }

  /** The head (CPU only) and a group "gpu" of {@code workers} 8-GPU pods, as YAML under spec. */
  private static String clusterSpec(int workers, String podAnnotations) {
    return """
        headGroupSpec:
          rayStartParams: {dashboard-host: 0.0.0.0}
          template:
            metadata: {annotations: {%s}}
            spec:
              containers:
              - name: ray-head
                image: rayproject/ray:2.9.0
                ports: [{containerPort: 6379, name: gcs-server}, {containerPort: 8265, name: dashboard}]
                resources: {requests: {cpu: "1", memory: 2Gi}}
        workerGroupSpecs:
        - groupName: gpu
          replicas: %d
          minReplicas: 0
          maxReplicas: 8
          rayStartParams: {}
          template:
            metadata: {annotations: {%s}}
            spec:
              containers:
              - name: ray-worker
                image: rayproject/ray:2.9.0
                resources: {limits: {nvidia.com/gpu: "8"}}
        """
        .formatted(podAnnotations, workers, podAnnotations);
  }

  private static RayCluster cluster(String namespace, String name, int workers, String labels) {
    return cluster(namespace, name, workers, labels, "");
  }

  private static RayCluster cluster(
      String namespace, String name, int workers, String labels, String podAnnotations) {
    return Serialization.unmarshal(
        """
        apiVersion: ray.io/v1
        kind: RayCluster
        metadata: {name: %s, namespace: %s, labels: {%s}}
        spec:
        """
                .formatted(name, namespace, labels)
            + clusterSpec(workers, podAnnotations).indent(2),
        RayCluster.class);
  }

  /** A RayJob whose submitter pod KWOK fails {@code failAfter} after it starts, not retried. */
  private static RayJob rayJob(String namespace, String name, int workers, String failAfter) {
    return rayJob(namespace, name, workers, ControlPlane.FAIL_AFTER, failAfter);
  }

  /**
   * A RayJob whose submitter pod carries KWOK's annotation {@code kwok} ({@link
   * ControlPlane#RUN_FOR} to succeed, {@link ControlPlane#FAIL_AFTER} to fail after {@code after}).
   */
  private static RayJob rayJob(
      String namespace, String name, int workers, String kwok, String after) {
    return Serialization.unmarshal(
        """
        apiVersion: ray.io/v1
        kind: RayJob
        metadata: {name: %s, namespace: %s, labels: {berth.dev/queue-name: lq}}
        spec:
          entrypoint: python -c "import ray; ray.init()"
          shutdownAfterJobFinishes: true
          submitterConfig: {backoffLimit: 0}
          submitterPodTemplate:
            metadata: {annotations: {%s: %s}}
            spec:
              restartPolicy: Never
              containers:
              - name: ray-job-submitter
                image: rayproject/ray:2.9.0
                resources: {requests: {cpu: 500m, memory: 200Mi}}
          rayClusterSpec:
        """
                .formatted(name, namespace, kwok, after)
            + clusterSpec(workers, "").indent(4),
        RayJob.class);
  }

  /** The pods KubeRay made for cluster {@code name}. */
  private static List<Pod> podsOf(Scenario s, String name) {
    return s.client
        .pods()
        .inNamespace(s.namespace)
        .withLabel("ray.io/cluster", name)
        .list()
        .getItems();
  }

  private static boolean allRunning(List<Pod> pods, int count) {
    return pods.size() == count
        && pods.stream()
            .allMatch(
                p ->
                    p.getMetadata().getDeletionTimestamp() == null
                        && p.getSpec().getNodeName() != null
                        && "Running".equals(p.getStatus().getPhase()));
  }

  private static RayCluster storedCluster(Scenario s, String name) {
    return s.client.resources(RayCluster.class).inNamespace(s.namespace).withName(name).get();
  }

  private static List<Workload> workloads(Scenario s) {
    return s.client.resources(Workload.class).inNamespace(s.namespace).list().getItems();
  }

  @Test
  void aRayClusterThatFitsOnlyWholeWaitsWholeThenKubeRayRunsAllItsPods() {
    Scenario s = rayQueue("ray-whole", 16, null);
    // 8 of the 16 GPUs held for 8 s: the cluster's 16 do not fit until the Job ends.
    s.submit(OnPlane.gpuJob(s, "blocker", 1, ControlPlane.RUN_FOR, "8s"));
    on.runningPods(s, "blocker", 1);
    s.client.resource(cluster(s.namespace, "whole", 2, "berth.dev/queue-name: lq")).create();
    await("the cluster's Workload")
        .atMost(Duration.ofSeconds(20))
        .until(() -> s.workload("whole").isPresent());
    await("the cluster waits whole: suspended, no pod")
        .during(Duration.ofSeconds(3))
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                podsOf(s, "whole").isEmpty()
                    && Boolean.TRUE.equals(storedCluster(s, "whole").getSpec().suspend)
                    && s.condition("whole", "QuotaReserved")
                        .map(c -> !"True".equals(c.status))
                        .orElse(true));
    // kubectl berth pending and the dashboard name its RayCluster, with KubeRay's own state of it.
    await("the pending item names RayCluster whole in KubeRay's state suspended")
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> pendingOwners(s.namespace),
            owners ->
                owners.stream()
                    .anyMatch(
                        o ->
                            "RayCluster".equals(o.path("kind").asText())
                                && "whole".equals(o.path("name").asText())
                                && "suspended".equals(o.path("status").asText())));
    Workload workload = s.workload("whole").orElseThrow();
    assertThat(workload.getSpec().podSets).extracting(ps -> ps.name).containsExactly("head", "gpu");
    assertThat(workload.getSpec().podSets).extracting(ps -> ps.count).containsExactly(1, 2);

    on.awaitOrDescribe(
        s,
        "the blocker done, KubeRay's head and 2 workers of cluster whole Running",
        () -> allRunning(podsOf(s, "whole"), 3));
    for (Pod pod : podsOf(s, "whole")) {
      assertThat(pod.getSpec().getNodeSelector())
          .as("the flavor's node labels, in the head's and the workers' templates")
          .containsEntry(SimNode.GPU_PRODUCT, SimNode.H100);
      assertThat(plane.nodeLabels(pod)).containsEntry(SimNode.GPU_PRODUCT, SimNode.H100);
    }
    on.awaitOrDescribe(
        s,
        "KubeRay reports cluster whole ready",
        () ->
            storedCluster(s, "whole").getStatus() != null
                && "ready".equals(storedCluster(s, "whole").getStatus().state));
    deleteCluster(s, "whole");
  }

  @Test
  void aRayJobIsOneWorkloadForItsClusterAndSubmitterAndFinishesThroughItsSubmitterJob() {
    Scenario s = rayQueue("ray-job", 16, null);
    s.client.resource(rayJob(s.namespace, "train", 2, "3s")).create();
    on.awaitOrDescribe(
        s,
        "KubeRay's cluster for RayJob train, its head and 2 workers Running",
        () -> {
          var clusters =
              s.client.resources(RayCluster.class).inNamespace(s.namespace).list().getItems();
          return clusters.size() == 1
              && allRunning(podsOf(s, clusters.get(0).getMetadata().getName()), 3);
        });
    RayCluster made =
        s.client.resources(RayCluster.class).inNamespace(s.namespace).list().getItems().get(0);
    assertThat(made.getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(o -> assertThat(o.getKind()).isEqualTo("RayJob"));
    assertThat(made.getMetadata().getLabels())
        .as("KubeRay copies the RayJob's labels, queue included")
        .containsEntry(Berth.QUEUE_NAME_LABEL, "lq");
    on.awaitOrDescribe(
        s,
        "the submitter Job KubeRay creates once the cluster is ready",
        () -> s.job("train") != null);
    // Neither the cluster nor the submitter Job is queued a second time: one Workload, the
    // RayJob's, of the cluster's pod sets and the submitter's.
    assertThat(workloads(s))
        .singleElement()
        .satisfies(
            w -> {
              assertThat(w.getMetadata().getOwnerReferences().get(0).getKind()).isEqualTo("RayJob");
              assertThat(w.getSpec().podSets)
                  .extracting(ps -> ps.name)
                  .containsExactly("head", "gpu", "submitter");
            });
    assertThat(s.job("train").getSpec().getSuspend()).isNotEqualTo(Boolean.TRUE);

    on.awaitFinished(s, "train");
    assertThat(s.condition("train", "Finished"))
        .hasValueSatisfying(c -> assertThat(c.reason).isEqualTo("Failed"));
    RayJob ended =
        s.client.resources(RayJob.class).inNamespace(s.namespace).withName("train").get();
    assertThat(ended.getStatus().jobDeploymentStatus).isEqualTo("Failed");
    assertThat(ended.getStatus().reason).isEqualTo("SubmissionFailed");
    on.awaitOrDescribe(
        s,
        "the cluster deleted once the RayJob ended (shutdownAfterJobFinishes), its pods gone",
        () ->
            s.client
                    .resources(RayCluster.class)
                    .inNamespace(s.namespace)
                    .list()
                    .getItems()
                    .isEmpty()
                && podsOf(s, made.getMetadata().getName()).isEmpty());
  }

  /**
   * Two RayJobs of all 16 GPUs: the second waits whole while the first runs; the first's submitter
   * succeeds, the stand-in Ray dashboard reports its Ray job SUCCEEDED, and KubeRay marks it
   * Complete; its quota back, the second is admitted and runs, and its failing submitter makes
   * KubeRay mark it Failed, which gives its quota back too.
   */
  @Test
  void aRayJobThatFitsOnlyWholeWaitsThenRunsToCompleteAndGivesItsQuotaBack() {
    Scenario s = rayQueue("ray-complete", 16, null);
    s.client.resource(rayJob(s.namespace, "first", 2, ControlPlane.RUN_FOR, "3s")).create();
    await("first's Workload admitted")
        .atMost(Duration.ofSeconds(20))
        .until(
            () -> s.condition("first", "Admitted").map(c -> "True".equals(c.status)).orElse(false));
    s.client.resource(rayJob(s.namespace, "second", 2, ControlPlane.FAIL_AFTER, "2s")).create();
    await("second waits whole: suspended, no quota, no cluster")
        .during(Duration.ofSeconds(3))
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                s.workload("second").isPresent()
                    && Boolean.TRUE.equals(storedRayJob(s, "second").getSpec().suspend)
                    && s.condition("second", "QuotaReserved")
                        .map(c -> !"True".equals(c.status))
                        .orElse(true)
                    && clustersOf(s, "second").isEmpty());

    on.awaitFinished(s, "first");
    assertThat(s.condition("first", "Finished"))
        .hasValueSatisfying(c -> assertThat(c.reason).isEqualTo("Succeeded"));
    RayJob first = storedRayJob(s, "first");
    assertThat(first.getStatus().jobDeploymentStatus).isEqualTo("Complete");
    assertThat(first.getStatus().jobStatus).isEqualTo("SUCCEEDED");

    on.awaitOrDescribe(
        s,
        "second admitted once first's quota is back, KubeRay's cluster for it Running",
        () ->
            s.condition("second", "Admitted").map(c -> "True".equals(c.status)).orElse(false)
                && clustersOf(s, "second").stream()
                    .anyMatch(c -> allRunning(podsOf(s, c.getMetadata().getName()), 3)));
    on.awaitFinished(s, "second");
    assertThat(s.condition("second", "Finished"))
        .hasValueSatisfying(c -> assertThat(c.reason).isEqualTo("Failed"));
    assertThat(storedRayJob(s, "second").getStatus().jobDeploymentStatus).isEqualTo("Failed");
    on.awaitOrDescribe(
        s,
        "the ClusterQueue admits nothing once second failed",
        () -> {
          ClusterQueue cq = s.client.resources(ClusterQueue.class).withName("ray-complete").get();
          return cq.getStatus() != null
              && Integer.valueOf(0).equals(cq.getStatus().admittedWorkloads)
              && Integer.valueOf(0).equals(cq.getStatus().reservingWorkloads);
        });
  }

  /** The clusters KubeRay made for RayJob {@code rayJob} (named after it, with a suffix). */
  private static List<RayCluster> clustersOf(Scenario s, String rayJob) {
    return s.client.resources(RayCluster.class).inNamespace(s.namespace).list().getItems().stream()
        .filter(c -> c.getMetadata().getName().startsWith(rayJob + "-"))
        .toList();
  }

  private static RayJob storedRayJob(Scenario s, String name) {
    return s.client.resources(RayJob.class).inNamespace(s.namespace).withName(name).get();
  }

  @Test
  void aPreemptedRayClustersPodsAreAllGoneBeforeThePreemptorsPodsAreBound() {
    ClusterQueuePreemption preemption = new ClusterQueuePreemption();
    preemption.withinClusterQueue = ClusterQueuePreemption.WithinClusterQueue.LowerPriority;
    Scenario s = rayQueue("ray-preempt", 16, preemption);
    // The victim holds both H100 nodes; each of its pods takes 2 s to stop once deleted.
    s.client
        .resource(
            cluster(
                s.namespace,
                "victim",
                2,
                "berth.dev/queue-name: lq, " + Berth.PRIORITY_CLASS_LABEL + ": ray-low",
                ControlPlane.STOP_AFTER + ": 2s"))
        .create();
    on.awaitOrDescribe(s, "the victim's 3 pods Running", () -> allRunning(podsOf(s, "victim"), 3));

    try (OnPlane.StopThenBind events =
        new OnPlane.StopThenBind(
            plane.client(), s.namespace, "ray.io/cluster", "victim", 3, "urgent")) {
      Job urgent = OnPlane.gpuJob(s, "urgent", 2, ControlPlane.RUN_FOR, "2s");
      urgent.getMetadata().getLabels().put(Berth.PRIORITY_CLASS_LABEL, "ray-high");
      s.submit(urgent);
      on.awaitJobCondition(s, "urgent", "Complete");
      // Berth gave the cluster's quota back only once KubeRay had deleted every pod of it and
      // none was left: no urgent pod shared a node with a stopping victim pod.
      assertThat(events.order).containsExactly("victim stopped", "preemptor bound");
    }
    // Evicted, it was put back as written, and runs again once the urgent Job is done.
    on.awaitOrDescribe(
        s, "the victim readmitted, 3 pods Running", () -> allRunning(podsOf(s, "victim"), 3));
    deleteCluster(s, "victim");
  }

  @Test
  void aTeamMembersWaysAroundTheQueueAreDenied() {
    Scenario s = rayQueue("ray-bypass", 16, null);
    TeamMemberRoles.bind(plane.client(), MEMBER, s.namespace);
    // Stand-in for KubeRay's own installation, which grants its users Ray objects; not one of
    // Berth's roles (those come from the chart above).
    plane
        .client()
        .rbac()
        .clusterRoles()
        .resource(
            new ClusterRoleBuilder()
                .withNewMetadata()
                .withName("ray-editor-stand-in")
                .endMetadata()
                .addNewRule()
                .withApiGroups("ray.io")
                .withResources("rayjobs", "rayclusters")
                .withVerbs("get", "list", "watch", "create", "update", "patch", "delete")
                .endRule()
                .build())
        .serverSideApply();
    TeamMemberRoles.bindRole(plane.client(), MEMBER, s.namespace, "ray-editor-stand-in");
    try (KubernetesClient member =
        new KubernetesClientBuilder()
            .withConfig(
                new ConfigBuilder(plane.client().getConfiguration())
                    .withImpersonateUsername(MEMBER)
                    .withImpersonateGroups("system:authenticated")
                    .build())
            .build()) {
      String ns = s.namespace;
      // No queue label in a namespace Berth manages.
      RayJob unqueued = rayJob(ns, "unqueued", 1, "1s");
      unqueued.getMetadata().setLabels(null);
      denied(
          () -> member.resource(unqueued).create(),
          "metadata.labels[" + Berth.QUEUE_NAME_LABEL + "]",
          "(lq)");

      // 32 GPUs in a 16-GPU queue: suspended at creation, never admitted.
      member.resource(cluster(ns, "held", 4, "berth.dev/queue-name: lq")).create();
      assertThat(storedCluster(s, "held").getSpec().suspend).isTrue();
      denied(
          () -> patch(member, "RayCluster", ns, "held", "{\"spec\":{\"suspend\":false}}"),
          "spec.suspend");
      denied(
          () ->
              patch(
                  member,
                  "RayCluster",
                  ns,
                  "held",
                  "{\"metadata\":{\"labels\":{\"berth.dev/queue-name\":null}}}"),
          "metadata.labels[" + Berth.QUEUE_NAME_LABEL + "]");
      denied(
          () ->
              patch(
                  member,
                  "RayCluster",
                  ns,
                  "held",
                  "{\"spec\":{\"enableInTreeAutoscaling\":true}}"),
          "spec.enableInTreeAutoscaling");

      // A running cluster cannot grow.
      member.resource(cluster(ns, "small", 1, "berth.dev/queue-name: lq")).create();
      on.awaitOrDescribe(s, "cluster small Running", () -> allRunning(podsOf(s, "small"), 2));
      denied(
          () ->
              member
                  .genericKubernetesResources("ray.io/v1", "RayCluster")
                  .inNamespace(ns)
                  .withName("small")
                  .patch(
                      PatchContext.of(PatchType.JSON),
                      "[{\"op\": \"replace\", \"path\": \"/spec/workerGroupSpecs/0/replicas\","
                          + " \"value\": 2}]"),
          "spec.workerGroupSpecs[0].replicas");

      // A cluster claiming to be a suspended RayJob's, made to run outside its queue.
      RayJob waiting = member.resource(rayJob(ns, "waiting", 4, "1s")).create();
      RayCluster forged = cluster(ns, "forged", 1, "");
      forged.getMetadata().setLabels(null);
      forged
          .getMetadata()
          .setOwnerReferences(
              List.of(
                  new io.fabric8.kubernetes.api.model.OwnerReferenceBuilder()
                      .withApiVersion("ray.io/v1")
                      .withKind("RayJob")
                      .withName("waiting")
                      .withUid(waiting.getMetadata().getUid())
                      .withController(true)
                      .build()));
      denied(() -> member.resource(forged).create(), "metadata.ownerReferences", "suspended");

      // A pod passed off as one of the running cluster's, asking more than its group.
      RayCluster small = storedCluster(s, "small");
      Pod extra =
          Serialization.unmarshal(
              """
              apiVersion: v1
              kind: Pod
              metadata:
                name: extra
                namespace: %s
                labels: {ray.io/cluster: small, ray.io/node-type: worker, ray.io/group: gpu}
                ownerReferences:
                - {apiVersion: ray.io/v1, kind: RayCluster, name: small, uid: %s, controller: true}
              spec:
                containers:
                - {name: w, image: ray, resources: {limits: {nvidia.com/gpu: "16"}}}
              """
                  .formatted(ns, small.getMetadata().getUid()),
              Pod.class);
      denied(() -> member.resource(extra).create(), "metadata.ownerReferences[0]");
      assertThat(podsOf(s, "small")).hasSize(2);
      for (String name : List.of("held", "small")) {
        deleteCluster(s, name);
      }
      s.client.resource(waiting).delete();
    }
  }

  private static void patch(
      KubernetesClient as, String kind, String namespace, String name, String mergePatch) {
    as.genericKubernetesResources("ray.io/v1", kind)
        .inNamespace(namespace)
        .withName(name)
        .patch(PatchContext.of(PatchType.JSON_MERGE), mergePatch);
  }

  /** DENIED by the API server, the message naming each of {@code fragments}. */
  private static void denied(
      org.assertj.core.api.ThrowableAssert.ThrowingCallable request, String... fragments) {
    var thrown =
        assertThatThrownBy(request)
            .isInstanceOf(KubernetesClientException.class)
            .hasMessageContaining("denied");
    for (String fragment : fragments) {
      thrown.hasMessageContaining(fragment);
    }
  }
}
