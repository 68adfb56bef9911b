package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.api.v1beta1.Berth;
import dev.berth.api.v1beta1.FlavorDeviceSelector;
import dev.berth.api.v1beta1.FlavorResourceCapacity;
import dev.berth.api.v1beta1.ResourceFlavor;
import dev.berth.api.v1beta1.Workload;
import dev.berth.e2e.plane.ControlPlane;
import dev.berth.e2e.plane.SimNode;
import dev.berth.local.DraDriverStandIn;
import dev.berth.operator.BerthOperator;
import dev.berth.operator.admission.DeviceRequests;
import dev.berth.testing.Jobs;
import dev.berth.webhook.WebhookRuntime;
import dev.berth.webhook.dra.DeviceClassMappings;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceSelectorBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplateBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * DRA on the whole control plane: {@link DraDriverStandIn} publishes ResourceSlices of 4 GPUs for
 * each of two KWOK nodes, the real kube-scheduler allocates the pods' claims from them (the
 * kube-controller-manager's resourceclaim controller makes each pod's claim from its template),
 * KWOK runs the pods, and Berth charges the devices through {@code deviceClassMappings}: a Job
 * whose template claims 2 GPUs waits in a 2-GPU queue behind another and runs when it finishes; a
 * claim shared by the 4 pods of a Job is charged once; the flavor's allocatable capacity falls when
 * a node's slice is withdrawn; a flavor of GPUs of at least 80Gi (a CEL device selector, no node
 * labels) counts only those and gets its pods' claims allocated only those, and admits a Job
 * sharing a claim only when the claim carries its selector. A StatefulSet and a LeaderWorkerSet
 * (the real LWS controller, where its source is) are charged and narrowed as a Job is, and a team
 * member adds no claim to their admitted groups. One plane for the class.
 */
class DraPlaneE2EIT {
  private static final String GPU = "example.com/gpu";
  private static final String FLAVOR = "dra-gpus";
  private static final List<String> NODES = List.of("dra-0", "dra-1");

  /** A node of other GPUs, of 80Gi each where the others' are 40Gi. */
  private static final String BIG_NODE = "dra-big";

  /** GPUs of at least 80Gi, whatever their node. */
  private static final String BIG_FLAVOR = "dra-80gi";

  private static final String AT_LEAST_80GI =
      "device.capacity[\""
          + DraDriverStandIn.DRIVER
          + "\"].memory.compareTo(quantity(\"80Gi\")) >= 0";

  /** GPUs of less than 80Gi, whatever their node: the serving kinds' flavor. */
  private static final String SMALL_FLAVOR = "dra-below-80gi";

  private static final String BELOW_80GI =
      "device.capacity[\""
          + DraDriverStandIn.DRIVER
          + "\"].memory.compareTo(quantity(\"80Gi\")) < 0";

  /** A team member: edit and the chart's roles (and LWS's editor role) in a test's namespace. */
  private static final String MEMBER = "gail";

  private static ControlPlane plane;
  private static boolean lws;

  /** The serving kinds' namespace ({@link #servingQueue}): a StatefulSet and an LWS share it. */
  private static Scenario serving;

  private static OnPlane on;
  private static DraDriverStandIn driver;
  private static WebhookRuntime webhooks;
  private static BerthOperator operator;

  @BeforeAll
  static void setUp() throws Exception {
    List<SimNode> nodes =
        List.of(
            SimNode.gpu(NODES.get(0), SimNode.H100, "zone-a", "rack-a0"),
            SimNode.gpu(NODES.get(1), SimNode.H100, "zone-a", "rack-a1"),
            SimNode.gpu(BIG_NODE, SimNode.A100, "zone-a", "rack-a2"));
    // With the LWS controller where its source is (before the webhooks: the LeaderWorkerSet
    // webhook is registered for its CRD); without it, the rest of the class runs all the same.
    plane = ControlPlane.startWithLeaderWorkerSet("dra", nodes).orElse(null);
    lws = plane != null;
    if (plane == null) {
      plane = ControlPlane.start("dra", nodes);
    }
    on = new OnPlane(plane);
    KubernetesClient admin = plane.client();
    Namespaces.ensure(admin, "berth-system");
    webhooks =
        ServedWebhooks.start(
            admin,
            new DeviceClassMappings(Map.of(DraDriverStandIn.DRIVER, GPU)),
            "integrations.frameworks={batch/job,pod,statefulset,"
                + "leaderworkerset.x-k8s.io/leaderworkerset}");
    admin.resource(DraDriverStandIn.deviceClass()).create();
    driver = new DraDriverStandIn(admin);
    NODES.forEach(n -> driver.publish(n, 4, "40Gi"));
    driver.publish(BIG_NODE, 4, "80Gi");
    admin
        .resource(ScenarioObjects.flavor(FLAVOR, Map.of(SimNode.GPU_PRODUCT, SimNode.H100)))
        .create();
    ResourceFlavor big = ScenarioObjects.flavor(BIG_FLAVOR, Map.of());
    big.getSpec().deviceSelectors = List.of(new FlavorDeviceSelector(null, AT_LEAST_80GI));
    admin.resource(big).create();
    ResourceFlavor small = ScenarioObjects.flavor(SMALL_FLAVOR, Map.of());
    small.getSpec().deviceSelectors = List.of(new FlavorDeviceSelector(null, BELOW_80GI));
    admin.resource(small).create();
    operator =
        RunningOperator.startNew(
            plane.kubeconfig(),
            "resources:\n  deviceClassMappings:\n  - {name: "
                + GPU
                + ", deviceClassNames: ["
                + DraDriverStandIn.DRIVER
                + "]}\n");
    Namespaces.ensure(admin, "dra-probe");
    ServedWebhooks.awaitPodGating(admin, "dra-probe");
    serving = servingQueue("dra-serving");
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

  /** A namespace with LocalQueue lq on a ClusterQueue of 2 GPUs of the DRA flavor. */
  private static Scenario twoGpuQueue(String name) {
    Scenario s = new Scenario(plane.client(), name);
    s.client.resource(ScenarioObjects.clusterQueue(name, FLAVOR, GPU, "2")).create();
    s.client.resource(ScenarioObjects.localQueue(name, "lq", name)).create();
    return s;
  }

  /** A Job of {@code pods} pods, each naming {@code claim} (a template's name, or a claim's). */
  private static Job job(
      Scenario s, String name, int pods, boolean template, String claim, String runFor) {
    Job job =
        Jobs.named(name)
            .in(s.namespace)
            .queue("lq")
            .parallelism(pods)
            .podAnnotation(ControlPlane.RUN_FOR, runFor)
            .build();
    job.getSpec().setBackoffLimit(0);
    var spec = job.getSpec().getTemplate().getSpec();
    PodResourceClaimBuilder ref = new PodResourceClaimBuilder().withName("gpus");
    spec.setResourceClaims(
        List.of(
            template
                ? ref.withResourceClaimTemplateName(claim).build()
                : ref.withResourceClaimName(claim).build()));
    spec.getContainers()
        .get(0)
        .getResources()
        .setClaims(List.of(new ResourceClaimBuilder().withName("gpus").build()));
    return job;
  }

  /** A ResourceClaimTemplate {@code name} of {@code gpus} of the stand-in driver's GPUs. */
  private static void claimTemplate(Scenario s, String name, int gpus) {
    s.client
        .resource(
            new ResourceClaimTemplateBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(s.namespace)
                .endMetadata()
                .withNewSpec()
                .withSpec(DraDriverStandIn.claimSpec(DraDriverStandIn.DRIVER, gpus))
                .endSpec()
                .build())
        .create();
  }

  /** The claim the scheduler allocated for the pod's first claim, as stored. */
  private static ResourceClaim claimOf(Pod pod) {
    String name =
        pod.getSpec().getResourceClaims().get(0).getResourceClaimName() != null
            ? pod.getSpec().getResourceClaims().get(0).getResourceClaimName()
            : pod.getStatus().getResourceClaimStatuses().get(0).getResourceClaimName();
    return plane
        .client()
        .resources(ResourceClaim.class)
        .inNamespace(pod.getMetadata().getNamespace())
        .withName(name)
        .get();
  }

  @Test
  void aJobClaimingTwoGpusWaitsBehindAnotherAndRunsWhenItFinishes() {
    Scenario s = twoGpuQueue("dra-queue");
    claimTemplate(s, "two-gpus", 2);
    s.submit(job(s, "first", 1, true, "two-gpus", "8s"));
    s.submit(job(s, "second", 1, true, "two-gpus", "30s"));

    Pod first = on.runningPods(s, "first", 1).get(0);
    ResourceClaim allocated = claimOf(first);
    assertThat(allocated.getStatus().getAllocation().getDevices().getResults())
        .as("kube-scheduler allocated 2 of the stand-in driver's devices")
        .hasSize(2)
        .allSatisfy(r -> assertThat(r.getDriver()).isEqualTo(DraDriverStandIn.DRIVER));
    assertThat(s.staysSuspended("second")).as("2 GPUs of quota, both held by first").isTrue();

    on.awaitJobCondition(s, "first", "Complete");
    Pod second = on.runningPods(s, "second", 1).get(0);
    assertThat(claimOf(second).getStatus().getAllocation().getDevices().getResults()).hasSize(2);
    assertThat(DeviceRequests.of(s.workload("second").orElseThrow()))
        .isEqualTo(Map.of("main", Map.of(GPU, 2L)));
  }

  @Test
  void aClaimSharedByFourPodsIsChargedOnce() {
    Scenario s = twoGpuQueue("dra-shared");
    s.client
        .resource(
            new io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder()
                .withNewMetadata()
                .withName("shared")
                .withNamespace(s.namespace)
                .endMetadata()
                .withSpec(DraDriverStandIn.claimSpec(DraDriverStandIn.DRIVER, 2))
                .build())
        .create();
    s.submit(job(s, "serve", 4, false, "shared", "60s"));

    List<Pod> pods = on.runningPods(s, "serve", 4);
    Workload wl = s.workload("serve").orElseThrow();
    assertThat(DeviceRequests.shared(wl)).isEqualTo(Map.of("main", Map.of(GPU, 2L)));
    assertThat(wl.getStatus().admission.podSetAssignments.get(0).resourceUsage.get(GPU))
        .as("2 GPUs, not 4 × 2")
        .isEqualTo(new Quantity("2"));
    ResourceClaim claim = claimOf(pods.get(0));
    assertThat(claim.getStatus().getAllocation().getDevices().getResults()).hasSize(2);
    assertThat(claim.getStatus().getReservedFor()).as("one allocation for the 4 pods").hasSize(4);
    assertThat(pods)
        .extracting(p -> p.getSpec().getNodeName())
        .as("the claim's devices are one node's")
        .containsOnly(pods.get(0).getSpec().getNodeName());
  }

  @Test
  void withdrawingANodesSliceLowersTheFlavorsAllocatableCapacity() {
    Scenario s = new Scenario(plane.client(), "dra-capacity");
    on.awaitOrDescribe(s, "8 GPUs published", () -> "8".equals(allocatable()));
    driver.withdraw(NODES.get(1));
    try {
      on.awaitOrDescribe(s, "4 GPUs left", () -> "4".equals(allocatable()));
    } finally {
      driver.publish(NODES.get(1), 4);
    }
    on.awaitOrDescribe(s, "8 GPUs again", () -> "8".equals(allocatable()));
  }

  @Test
  void aFlavorByDeviceMemoryLandsPodsOnlyOnTheNodesWhoseDevicesMatch() {
    Scenario s = new Scenario(plane.client(), "dra-memory");
    s.client.resource(ScenarioObjects.clusterQueue(s.namespace, BIG_FLAVOR, GPU, "4")).create();
    s.client.resource(ScenarioObjects.localQueue(s.namespace, "lq", s.namespace)).create();
    on.awaitOrDescribe(
        s, "the 80Gi GPUs alone in the flavor", () -> "4".equals(allocatable(BIG_FLAVOR)));
    claimTemplate(s, "one-gpu", 1);
    // 4 pods and no node label: the 40Gi GPUs of 2 other nodes are free for kube-scheduler to
    // spread them to, but for the selector Berth adds to their claims.
    s.submit(job(s, "big", 4, true, "one-gpu", "60s"));

    List<Pod> pods = on.runningPods(s, "big", 4);
    assertThat(pods).extracting(p -> p.getSpec().getNodeName()).containsOnly(BIG_NODE);
    for (Pod pod : pods) {
      ResourceClaim claim = claimOf(pod);
      assertThat(claim.getSpec().getDevices().getRequests().get(0).getExactly().getSelectors())
          .as("the flavor's selector, added to the claim made from the team's template")
          .extracting(selector -> selector.getCel().getExpression())
          .containsExactly(AT_LEAST_80GI);
      assertThat(claim.getStatus().getAllocation().getDevices().getResults())
          .extracting(r -> r.getPool())
          .containsOnly(BIG_NODE);
    }
    assertThat(allocatable(FLAVOR)).as("the H100 nodes' 40Gi GPUs").isEqualTo("8");
    // The 80Gi GPUs free again for the other tests of the class.
    s.client.batch().v1().jobs().inNamespace(s.namespace).withName("big").delete();
  }

  /** A ResourceClaim of one GPU for the pods of a Job to share, carrying {@code selectors}. */
  private static ResourceClaim sharedGpu(Scenario s, String name, String... selectors) {
    var spec = DraDriverStandIn.claimSpec(DraDriverStandIn.DRIVER, 1);
    spec.getDevices()
        .getRequests()
        .get(0)
        .getExactly()
        .setSelectors(
            java.util.Arrays.stream(selectors)
                .map(
                    e ->
                        new DeviceSelectorBuilder().withNewCel().withExpression(e).endCel().build())
                .toList());
    return new io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(s.namespace)
        .endMetadata()
        .withSpec(spec)
        .build();
  }

  @Test
  void aSharedClaimIsAdmittedOnAFlavorByMemoryOnlyWhenItCarriesTheSelector() {
    Scenario s = new Scenario(plane.client(), "dra-shared-80gi");
    s.client.resource(ScenarioObjects.clusterQueue(s.namespace, BIG_FLAVOR, GPU, "4")).create();
    s.client.resource(ScenarioObjects.localQueue(s.namespace, "lq", s.namespace)).create();
    // Berth cannot add the flavor's selector to a claim the team made: kube-scheduler could give
    // this one a 40Gi GPU, so the 80Gi flavor does not fit the Job sharing it.
    s.client.resource(sharedGpu(s, "any-gpu")).create();
    s.client.resource(sharedGpu(s, "big-gpu", AT_LEAST_80GI)).create();
    s.submit(job(s, "unnarrowed", 2, false, "any-gpu", "30s"));
    s.submit(job(s, "narrowed", 2, false, "big-gpu", "30s"));
    try {
      List<Pod> pods = on.runningPods(s, "narrowed", 2);
      assertThat(pods).extracting(p -> p.getSpec().getNodeName()).containsOnly(BIG_NODE);
      assertThat(claimOf(pods.get(0)).getStatus().getAllocation().getDevices().getResults())
          .extracting(r -> r.getPool())
          .containsOnly(BIG_NODE);

      on.awaitOrDescribe(
          s,
          "unnarrowed pending, naming its claim and the flavor",
          () ->
              s.condition("unnarrowed", "QuotaReserved")
                  .map(
                      c ->
                          "False".equals(c.status)
                              && c.message != null
                              && c.message.contains("flavor " + BIG_FLAVOR)
                              && c.message.contains("shared ResourceClaim any-gpu"))
                  .orElse(false));
      assertThat(s.staysSuspended("unnarrowed"))
          .as("4 GPUs of quota free, no fitting flavor")
          .isTrue();
    } finally {
      for (String job : List.of("unnarrowed", "narrowed")) {
        s.client.batch().v1().jobs().inNamespace(s.namespace).withName(job).delete();
      }
    }
  }

  /**
   * A namespace with LocalQueue lq on a ClusterQueue of 4 GPUs of the below-80Gi flavor, a
   * ResourceClaimTemplate one-gpu, and {@link #MEMBER} bound to edit, the chart's roles and LWS's
   * editor role there (once for the class: the chart's roles are applied once on a plane whose
   * aggregation controller then owns their rules).
   */
  private static Scenario servingQueue(String name) {
    Scenario s = new Scenario(plane.client(), name);
    s.client.resource(ScenarioObjects.clusterQueue(name, SMALL_FLAVOR, GPU, "4")).create();
    s.client.resource(ScenarioObjects.localQueue(name, "lq", name)).create();
    claimTemplate(s, "one-gpu", 1);
    TeamMemberRoles.bind(s.client, MEMBER, s.namespace);
    TeamMemberRoles.bindEditorStandIn(
        s.client,
        MEMBER,
        s.namespace,
        "leaderworkerset-editor-role",
        List.of("leaderworkerset.x-k8s.io"),
        List.of("leaderworkersets"));
    return s;
  }

  private static KubernetesClient member() {
    return new KubernetesClientBuilder()
        .withConfig(
            new ConfigBuilder(plane.client().getConfiguration())
                .withImpersonateUsername(MEMBER)
                .withImpersonateGroups("system:authenticated")
                .build())
        .build();
  }

  /** A pod template of app {@code app} whose one container holds a claim made from one-gpu. */
  private static String podTemplate(String app, String indent) {
    return """
        metadata:
          labels: {app: %s}
          annotations: {%s: 600s}
        spec:
          terminationGracePeriodSeconds: 0
          resourceClaims: [{name: gpus, resourceClaimTemplateName: one-gpu}]
          containers:
          - {name: c, image: server, resources: {claims: [{name: gpus}]}}
        """
        .formatted(app, ControlPlane.RUN_FOR)
        .indent(indent.length());
  }

  /**
   * The pods of {@code app}, once {@code count} of them are bound and Running; each has the
   * below-80Gi flavor's selector on its claim, allocated on a 40Gi node.
   */
  private static List<Pod> runningAndNarrowed(Scenario s, String app, int count) {
    on.awaitOrDescribe(
        s,
        count + " pods of " + app + " bound and Running",
        () ->
            OnPlane.allBoundAndRunning(
                s.client.pods().inNamespace(s.namespace).withLabel("app", app).list().getItems(),
                count));
    List<Pod> pods =
        s.client.pods().inNamespace(s.namespace).withLabel("app", app).list().getItems();
    for (Pod pod : pods) {
      ResourceClaim claim = claimOf(pod);
      assertThat(claim.getSpec().getDevices().getRequests().get(0).getExactly().getSelectors())
          .as("the flavor's selector on %s's claim", pod.getMetadata().getName())
          .extracting(selector -> selector.getCel().getExpression())
          .containsExactly(BELOW_80GI);
      assertThat(claim.getStatus().getAllocation().getDevices().getResults())
          .extracting(r -> r.getPool())
          .singleElement()
          .isIn(NODES);
    }
    return pods;
  }

  /** The Workload of a pod's group, as stored. */
  private static Workload groupWorkload(Pod pod) {
    return plane
        .client()
        .resources(Workload.class)
        .inNamespace(pod.getMetadata().getNamespace())
        .withName(pod.getMetadata().getLabels().get(Berth.POD_GROUP_NAME_LABEL))
        .get();
  }

  /**
   * A pod a team member makes by hand to join {@code pod}'s admitted group, in its role, with one
   * more claim: DENIED, naming the claims.
   */
  private static void assertJoiningWithOneMoreClaimIsDenied(KubernetesClient member, Pod pod) {
    Map<String, String> labels = pod.getMetadata().getLabels();
    Map<String, String> annotations = pod.getMetadata().getAnnotations();
    Pod extra =
        new PodBuilder()
            .withNewMetadata()
            .withName(pod.getMetadata().getName() + "-extra")
            .withNamespace(pod.getMetadata().getNamespace())
            .addToLabels(Berth.QUEUE_NAME_LABEL, "lq")
            .addToLabels(Berth.POD_GROUP_NAME_LABEL, labels.get(Berth.POD_GROUP_NAME_LABEL))
            .addToAnnotations(
                Berth.POD_GROUP_TOTAL_COUNT_ANNOTATION,
                annotations.get(Berth.POD_GROUP_TOTAL_COUNT_ANNOTATION))
            .addToAnnotations(
                Berth.POD_GROUP_ROLE_ANNOTATION,
                annotations.getOrDefault(Berth.POD_GROUP_ROLE_ANNOTATION, "main"))
            .endMetadata()
            .withNewSpec()
            .withResourceClaims(
                new PodResourceClaimBuilder()
                    .withName("gpus")
                    .withResourceClaimTemplateName("one-gpu")
                    .build(),
                new PodResourceClaimBuilder()
                    .withName("more")
                    .withResourceClaimTemplateName("one-gpu")
                    .build())
            .addNewContainer()
            .withName("c")
            .withImage("server")
            .endContainer()
            .endSpec()
            .build();
    assertThatThrownBy(() -> member.resource(extra).create())
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("spec.resourceClaims")
        .hasMessageContaining(
            "the pod's claims hold 2 " + GPU + " and its Workload was charged 1 a pod");
  }

  /**
   * A StatefulSet of 2 pods, each with a claim from a template of 1 GPU: its group is charged 1 a
   * pod, its pods run, their claims narrowed to the flavor; a team member cannot add a pod with one
   * more claim to the admitted group.
   */
  @Test
  void aStatefulSetsClaimsAreChargedPerPodAndNarrowedToItsFlavor() throws Exception {
    Scenario s = serving;
    try (KubernetesClient member = member()) {
      member
          .resource(
              Serialization.unmarshal(
                  """
                  apiVersion: apps/v1
                  kind: StatefulSet
                  metadata: {name: db, namespace: %s, labels: {berth.dev/queue-name: lq}}
                  spec:
                    replicas: 2
                    serviceName: db
                    selector: {matchLabels: {app: db}}
                    template:
                  %s"""
                      .formatted(s.namespace, podTemplate("db", "    ")),
                  StatefulSet.class))
          .create();
      List<Pod> pods = runningAndNarrowed(s, "db", 2);
      Workload wl = groupWorkload(pods.get(0));
      assertThat(DeviceRequests.of(wl)).isEqualTo(Map.of("main", Map.of(GPU, 1L)));
      assertThat(wl.getStatus().admission.podSetAssignments.get(0).resourceUsage.get(GPU))
          .as("1 GPU a pod")
          .isEqualTo(new Quantity("2"));
      assertJoiningWithOneMoreClaimIsDenied(member, pods.get(0));
    }
  }

  /**
   * A LeaderWorkerSet (the real LWS controller) of one group of a leader and a worker, each with a
   * claim of 1 GPU: its group is charged 1 a pod in each role, both run with claims narrowed to the
   * flavor; a team member can neither add a claim to its templates nor a pod with one more claim to
   * the admitted group.
   */
  @Test
  void aLeaderWorkerSetsClaimsAreChargedPerPodAndNarrowedToItsFlavor() throws Exception {
    Assumptions.assumeTrue(
        lws,
        "SKIPPED: no LeaderWorkerSet source at "
            + ControlPlane.lwsTarball()
            + ", so no LWS controller (the LeaderWorkerSet half of DRA on every kind)");
    Scenario s = serving;
    try (KubernetesClient member = member()) {
      member
          .resource(
              Serialization.unmarshal(
                  """
                  apiVersion: leaderworkerset.x-k8s.io/v1
                  kind: LeaderWorkerSet
                  metadata: {name: serve, namespace: %s, labels: {berth.dev/queue-name: lq}}
                  spec:
                    replicas: 1
                    leaderWorkerTemplate:
                      size: 2
                      leaderTemplate:
                  %s
                      workerTemplate:
                  %s"""
                      .formatted(
                          s.namespace,
                          podTemplate("serve", "        "),
                          podTemplate("serve", "        ")),
                  GenericKubernetesResource.class))
          .create();
      List<Pod> pods = runningAndNarrowed(s, "serve", 2);
      Workload wl = groupWorkload(pods.get(0));
      assertThat(DeviceRequests.of(wl))
          .isEqualTo(Map.of("leader", Map.of(GPU, 1L), "worker", Map.of(GPU, 1L)));
      assertThat(wl.getStatus().admission.podSetAssignments)
          .extracting(a -> a.resourceUsage.get(GPU))
          .containsOnly(new Quantity("1"));
      assertThatThrownBy(
              () ->
                  member
                      .genericKubernetesResources("leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet")
                      .inNamespace(s.namespace)
                      .withName("serve")
                      .patch(
                          PatchContext.of(PatchType.JSON),
                          "[{\"op\": \"add\", \"path\":"
                              + " \"/spec/leaderWorkerTemplate/workerTemplate/spec/resourceClaims/-\","
                              + " \"value\": {\"name\": \"more\", \"resourceClaimTemplateName\":"
                              + " \"one-gpu\"}}]"))
          .isInstanceOf(KubernetesClientException.class)
          .hasMessageContaining("resourceClaims");
      Pod worker =
          pods.stream()
              .filter(
                  p ->
                      "worker"
                          .equals(
                              p.getMetadata()
                                  .getAnnotations()
                                  .get(Berth.POD_GROUP_ROLE_ANNOTATION)))
              .findFirst()
              .orElseThrow();
      assertJoiningWithOneMoreClaimIsDenied(member, worker);
    }
  }

  private static String allocatable() {
    return allocatable(FLAVOR);
  }

  private static String allocatable(String flavor) {
    var status = plane.client().resources(ResourceFlavor.class).withName(flavor).get().getStatus();
    if (status == null || status.resources == null) {
      return null;
    }
    return status.resources.stream()
        .filter(r -> GPU.equals(r.name))
        .map((FlavorResourceCapacity r) -> r.allocatable)
        .findFirst()
        .orElse(null);
  }
}
