package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.api.v1beta1.Condition;
import dev.berth.api.v1beta1.FlavorResourceCapacity;
import dev.berth.api.v1beta1.ResourceFlavor;
import dev.berth.api.v1beta1.ResourceFlavorStatus;
import dev.berth.api.v1beta1.Workload;
import dev.berth.operator.BerthOperator;
import dev.berth.testing.ClusterQueues;
import dev.berth.testing.Cohorts;
import dev.berth.testing.Jobs;
import dev.berth.testing.LocalQueues;
import dev.berth.testing.Quota;
import dev.berth.testing.ResourceFlavors;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeStatusBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.Gauge;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * ResourceFlavor capacity on a real API server, with Node objects made by the test (there is no
 * kubelet): as nodes are added, cordoned, tainted, marked NotReady and removed, the flavor's status
 * and the berth_flavor_* metrics follow. The steps build on each other, in order.
 *
 * <p>Flavor cap-h100: nodes labelled {@code berth.dev/test-pool=capacity-h100}, 8 GPUs each, 2 GPUs
 * kept for the platform. ClusterQueues cap-team-a (16 GPUs, may borrow 8) and cap-team-b (8 GPUs)
 * in cohort cap-pool commit 24 GPUs.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CapacityE2EIT {
  private static final String NS = "capacity";
  private static final String POOL = "berth.dev/test-pool";
  private static final String GPU = "nvidia.com/gpu";
  private static final String FLAVOR = "cap-h100";
  private static KubernetesClient admin;
  private static BerthOperator operator;
  private static Scenario scenario;

  @BeforeAll
  static void setUp() {
    scenario = new Scenario(NS);
    admin = scenario.client;
    operator = RunningOperator.shared();
    admin
        .resource(
            ResourceFlavors.named(FLAVOR)
                .nodeLabel(POOL, "capacity-h100")
                .platformReservation(GPU, "2")
                .build())
        .create();
    admin.resource(Cohorts.named("cap-pool").build()).create();
    admin
        .resource(
            ClusterQueues.named("cap-team-a")
                .cohort("cap-pool")
                .flavor(FLAVOR, Quota.gpu("16").borrowingLimit("8"))
                .build())
        .create();
    admin
        .resource(
            ClusterQueues.named("cap-team-b")
                .cohort("cap-pool")
                .flavor(FLAVOR, Quota.gpu("8"))
                .build())
        .create();
    admin.resource(LocalQueues.named("gpus").in(NS).clusterQueue("cap-team-a").build()).create();
  }

  @AfterAll
  static void tearDown() {
    for (String name :
        List.of("cap-n1", "cap-n2", "cap-n3", "cap-n4", "cap-n5", "cap-ts", "cap-mig")) {
      admin.nodes().withName(name).delete();
    }
  }

  @Test
  @Order(10)
  void readyNodesAreAllocatableLessThePlatformReservation() {
    for (int n = 1; n <= 4; n++) {
      readyNode("cap-n" + n, "capacity-h100", Map.of(GPU, "8"));
    }

    ResourceFlavorStatus status = awaitGpu(s -> s.nodes == 4 && "30".equals(gpu(s).allocatable));
    FlavorResourceCapacity gpu = gpu(status);
    assertThat(status.allocatableNodes).isEqualTo(4);
    assertThat(gpu.physical).isEqualTo("32");
    assertThat(gpu.platformReserved).isEqualTo("2");
    assertThat(gpu.committed).isEqualTo("24");
    assertThat(gpu.borrowingPeak).as("team-a: 16 + 8 borrowed, all the cohort has").isEqualTo("24");
    assertThat(gpu.overCommitRatio).isEqualTo("0.80");
    assertThat(condition(status, "OverCommitted").status).isEqualTo("False");
    assertThat(status.shared).isNull();
    awaitMetric("allocatable", 30);
    assertThat(metric("physical")).isEqualTo(32);
    assertThat(metric("committed")).isEqualTo(24);
    assertThat(ratioMetric()).isEqualTo(0.8);
    assertThat(operator.registry().scrape())
        .contains(
            "berth_flavor_capacity{flavor=\"cap-h100\",kind=\"allocatable\","
                + "resource=\"nvidia.com/gpu\"} 30.0");
  }

  @Test
  @Order(20)
  void aNewNodeCountsOnlyOnceItIsReadyAndItsNotReadyTaintIsLifted() {
    // As the API server stores a new node: tainted not-ready, without a Ready condition.
    node("cap-n5", "capacity-h100", Map.of(GPU, "8"), false);

    ResourceFlavorStatus status = awaitGpu(s -> s.nodes == 5);
    assertThat(status.allocatableNodes).isEqualTo(4);
    assertThat(gpu(status).physical).isEqualTo("40");
    assertThat(gpu(status).allocatable).isEqualTo("30");
    awaitMetric("physical", 40);
  }

  @Test
  @Order(30)
  void cordoningANodeBelowCommittedQuotaMakesTheFlavorOverCommitted() {
    admin
        .nodes()
        .withName("cap-n1")
        .edit(
            n -> {
              n.getSpec().setUnschedulable(true);
              return n;
            });

    ResourceFlavorStatus status = awaitGpu(s -> "22".equals(gpu(s).allocatable));
    assertThat(status.allocatableNodes).isEqualTo(3);
    assertThat(gpu(status).overCommitRatio).isEqualTo("1.09");
    Condition over = condition(status, "OverCommitted");
    assertThat(over.status).isEqualTo("True");
    assertThat(over.reason).isEqualTo("NominalQuotaExceedsAllocatable");
    assertThat(over.message)
        .startsWith(
            "Nominal quota exceeds allocatable capacity: nvidia.com/gpu committed 24"
                + " > allocatable 22")
        .contains("cap-n1 Cordoned", "cap-n5 NotReady");
    awaitFlavorEvent(
        e -> {
          assertThat(e.getType()).isEqualTo("Warning");
          assertThat(e.getReason()).isEqualTo("OverCommitted");
          assertThat(e.getMessage()).isEqualTo(over.message);
        });
    awaitMetric("allocatable", 22);
    assertThat(ratioMetric()).isEqualTo(24.0 / 22);
  }

  @Test
  @Order(40)
  void aMaintenanceTaintAndANodeGoingNotReadyPushAllocatableBelowWhatIsAdmitted() {
    scenario.submit(
        Jobs.named("train").in(NS).queue("gpus").parallelism(2).request(GPU, "8").build());
    scenario.awaitRunning("train");
    Workload wl = scenario.workload("train").orElseThrow();
    // One pod of it bound to a node, as kube-scheduler and the kubelet would: 8 GPUs in use.
    admin
        .pods()
        .inNamespace(NS)
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withName("train-0")
                .withNamespace(NS)
                .endMetadata()
                .withNewSpec()
                .withNodeName("cap-n4")
                .addNewContainer()
                .withName("main")
                .withImage("busybox")
                .withNewResources()
                .addToRequests(GPU, new Quantity("8"))
                .addToLimits(GPU, new Quantity("8"))
                .endResources()
                .endContainer()
                .endSpec()
                .build())
        .create();
    ResourceFlavorStatus reserved =
        awaitGpu(s -> "16".equals(gpu(s).reserved) && "8".equals(gpu(s).inUse));
    assertThat(condition(reserved, "CapacityShortfall").status).isEqualTo("False");

    admin
        .nodes()
        .withName("cap-n2")
        .edit(
            n -> {
              n.getSpec()
                  .setTaints(
                      List.of(
                          new TaintBuilder()
                              .withKey("berth.dev/maintenance")
                              .withEffect("NoSchedule")
                              .build()));
              return n;
            });
    admin
        .nodes()
        .withName("cap-n3")
        .editStatus(
            n -> {
              n.getStatus().getConditions().get(0).setStatus("False");
              return n;
            });

    ResourceFlavorStatus status = awaitGpu(s -> "6".equals(gpu(s).allocatable));
    assertThat(status.allocatableNodes).as("cap-n4 only").isEqualTo(1);
    Condition shortfall = condition(status, "CapacityShortfall");
    assertThat(shortfall.status).isEqualTo("True");
    assertThat(shortfall.reason).isEqualTo("AllocatableBelowReserved");
    assertThat(shortfall.message)
        .startsWith(
            "Admitted workloads hold more than the usable nodes have: nvidia.com/gpu"
                + " reserved 16 > allocatable 6")
        .contains("cap-n2 Tainted berth.dev/maintenance", "cap-n3 NotReady")
        .endsWith("workloads at risk: " + NS + "/" + wl.getMetadata().getName());
    awaitFlavorEvent(
        e -> {
          assertThat(e.getReason()).isEqualTo("CapacityShortfall");
          assertThat(e.getMessage()).contains(wl.getMetadata().getName());
        });
    awaitMetric("allocatable", 6);
    assertThat(metric("reserved")).isEqualTo(16);
    assertThat(metric("in_use")).isEqualTo(8);
  }

  @Test
  @Order(50)
  void removedNodesLeaveThePhysicalCountAndRecoveryClearsTheConditions() {
    for (String n : List.of("cap-n1", "cap-n2", "cap-n3")) {
      admin.nodes().withName(n).delete();
    }
    ResourceFlavorStatus status = awaitGpu(s -> s.nodes == 2);
    assertThat(gpu(status).physical).isEqualTo("16");
    awaitMetric("physical", 16);

    for (String n : List.of("cap-n1", "cap-n2", "cap-n3")) {
      readyNode(n, "capacity-h100", Map.of(GPU, "8"));
    }
    Kubelet.complete(admin, scenario.job("train"));
    // Without a kubelet to confirm, only a forced deletion removes a bound pod at once.
    admin.pods().inNamespace(NS).withName("train-0").withGracePeriod(0).delete();

    // The Workload's release and the pod's deletion reach the operator as separate events: the
    // status may say reserved 0 while the pod still counts as in use for a moment.
    ResourceFlavorStatus recovered =
        awaitGpu(
            s ->
                "30".equals(gpu(s).allocatable)
                    && "0".equals(gpu(s).reserved)
                    && "0".equals(gpu(s).inUse));
    assertThat(condition(recovered, "OverCommitted").status).isEqualTo("False");
    assertThat(condition(recovered, "CapacityShortfall").status).isEqualTo("False");
    awaitFlavorEvent(
        e -> {
          assertThat(e.getType()).isEqualTo("Normal");
          assertThat(e.getReason()).isEqualTo("OverCommittedResolved");
        });
    awaitMetric("in_use", 0);
  }

  @Test
  @Order(60)
  void timeSlicedGpusAreMarkedSharedAndMigProfilesStayApart() {
    admin.resource(ScenarioObjects.flavor("cap-shared", Map.of(POOL, "capacity-ts"))).create();
    admin.resource(ScenarioObjects.flavor("cap-mig", Map.of(POOL, "capacity-mig"))).create();
    Node ts = readyNode("cap-ts", "capacity-ts", Map.of(GPU, "16"));
    admin
        .nodes()
        .withName(ts.getMetadata().getName())
        .edit(
            n -> {
              n.getMetadata().getLabels().put("nvidia.com/gpu.sharing-strategy", "time-slicing");
              n.getMetadata().getLabels().put("nvidia.com/gpu.replicas", "4");
              return n;
            });
    readyNode(
        "cap-mig",
        "capacity-mig",
        Map.of("nvidia.com/mig-1g.10gb", "7", "nvidia.com/mig-3g.40gb", "2"));

    ResourceFlavorStatus shared = awaitStatus("cap-shared", s -> Boolean.TRUE.equals(s.shared));
    assertThat(shared.sharingStrategy).isEqualTo("time-slicing");
    assertThat(shared.sharingReplicas).isEqualTo(4);
    assertThat(resource(shared, GPU).physical).isEqualTo("16");
    assertThat(resource(shared, GPU).shared).isTrue();

    ResourceFlavorStatus mig = awaitStatus("cap-mig", s -> s.nodes != null && s.nodes == 1);
    assertThat(mig.shared).isNull();
    assertThat(resource(mig, "nvidia.com/mig-1g.10gb").allocatable).isEqualTo("7");
    assertThat(resource(mig, "nvidia.com/mig-3g.40gb").physical).isEqualTo("2");
    assertThat(mig.resources).extracting(r -> r.name).doesNotContain(GPU);
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(gauge("berth_flavor_shared", Map.of("flavor", "cap-shared")).value())
                    .isEqualTo(1));
  }

  // ------------------------------------------------------------------ helpers

  private static Node readyNode(String name, String pool, Map<String, String> gpus) {
    return node(name, pool, gpus, true);
  }

  /**
   * A node as the API server stores it (tainted not-ready); when {@code ready}, then Ready with the
   * taint lifted, as the kubelet and the node lifecycle controller would.
   */
  private static Node node(String name, String pool, Map<String, String> extended, boolean ready) {
    admin
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .addToLabels(Map.of(POOL, pool, "kubernetes.io/hostname", name))
                .endMetadata()
                .withNewSpec()
                .endSpec()
                .build())
        .create();
    admin
        .nodes()
        .withName(name)
        .editStatus(
            n -> {
              NodeStatusBuilder status =
                  new NodeStatusBuilder()
                      .addToCapacity("cpu", new Quantity("96"))
                      .addToAllocatable("cpu", new Quantity("94"))
                      .addNewCondition()
                      .withType("Ready")
                      .withStatus(ready ? "True" : "False")
                      .endCondition();
              extended.forEach(
                  (r, q) ->
                      status
                          .addToCapacity(r, new Quantity(q))
                          .addToAllocatable(r, new Quantity(q)));
              n.setStatus(status.build());
              return n;
            });
    if (!ready) {
      return admin.nodes().withName(name).get();
    }
    return admin
        .nodes()
        .withName(name)
        .edit(
            n -> {
              n.getSpec().setTaints(null);
              return n;
            });
  }

  private static ResourceFlavorStatus awaitGpu(Predicate<ResourceFlavorStatus> ok) {
    return awaitStatus(FLAVOR, s -> gpu(s) != null && ok.test(s));
  }

  private static ResourceFlavorStatus awaitStatus(
      String flavor, Predicate<ResourceFlavorStatus> ok) {
    return await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> admin.resources(ResourceFlavor.class).withName(flavor).get().getStatus(),
            s -> s != null && s.resources != null && ok.test(s));
  }

  private static FlavorResourceCapacity gpu(ResourceFlavorStatus s) {
    return resource(s, GPU);
  }

  private static FlavorResourceCapacity resource(ResourceFlavorStatus s, String name) {
    return s.resources.stream().filter(r -> r.name.equals(name)).findFirst().orElse(null);
  }

  private static Condition condition(ResourceFlavorStatus s, String type) {
    return s.conditions.stream().filter(c -> c.type.equals(type)).findFirst().orElseThrow();
  }

  /** Events of a cluster-scoped object go to the default namespace. */
  private static void awaitFlavorEvent(java.util.function.Consumer<Event> requirements) {
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(
                        admin.v1().events().inNamespace("default").list().getItems().stream()
                            .filter(e -> FLAVOR.equals(e.getInvolvedObject().getName())))
                    .anySatisfy(requirements));
  }

  private static Gauge gauge(String name, Map<String, String> tags) {
    var search = operator.registry().find(name);
    for (var t : tags.entrySet()) {
      search = search.tag(t.getKey(), t.getValue());
    }
    return search.gauge();
  }

  private static double metric(String kind) {
    Map<String, String> tags = new HashMap<>(Map.of("flavor", FLAVOR, "resource", GPU));
    tags.put("kind", kind);
    Gauge g = gauge("berth_flavor_capacity", tags);
    return g == null ? Double.NaN : g.value();
  }

  private static void awaitMetric(String kind, double value) {
    await().atMost(Duration.ofSeconds(30)).until(() -> metric(kind) == value);
  }

  private static double ratioMetric() {
    return gauge("berth_flavor_overcommit_ratio", Map.of("flavor", FLAVOR, "resource", GPU))
        .value();
  }
}
