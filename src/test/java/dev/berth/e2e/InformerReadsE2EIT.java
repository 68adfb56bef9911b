package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.api.v1beta1.Admission;
import dev.berth.api.v1beta1.ClusterQueue;
import dev.berth.api.v1beta1.Condition;
import dev.berth.api.v1beta1.PodSet;
import dev.berth.api.v1beta1.PodSetAssignment;
import dev.berth.api.v1beta1.ResourceFlavor;
import dev.berth.api.v1beta1.Workload;
import dev.berth.api.v1beta1.WorkloadSpec;
import dev.berth.api.v1beta1.WorkloadStatus;
import dev.berth.operator.BerthOperator;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The operator reads the cluster through its informers, on an API server of its own: a start with
 * 1,010 Workloads already there rebuilds the engine from the informers' paged first lists (no LIST
 * of its own), with every reservation a previous leader left, the Evicted one known as an eviction
 * in progress; deleting a ClusterQueue and a ResourceFlavor in use waits on informer indexes, not
 * on a LIST of every Workload or ClusterQueue per recheck. The test itself reads by name and
 * watches, so every LIST the API server counts is the operator's.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class InformerReadsE2EIT {
  private static final String NS = "informer-reads";
  private static final String FLAVOR = "reads-flavor";
  private static final String CQ = "reads-cq";
  private static final int HELD = 10;
  private static final int WAITING = 1_000;

  private static TestApiServer.Cluster cluster;
  private static KubernetesClient admin;
  private static BerthOperator operator;
  private static Watch watch;
  private static long workloadListsAtStart;

  /** Workload name → whether it holds quota and is unfinished, as the test's watch last saw it. */
  private static final Map<String, Boolean> holding = new ConcurrentHashMap<>();

  /** Every Workload the watch ever saw holding quota. */
  private static final Set<String> everHeld = ConcurrentHashMap.newKeySet();

  @BeforeAll
  static void setUp() throws Exception {
    cluster = TestApiServer.dedicated();
    admin = cluster.client();
    Namespaces.ensure(admin, "berth-system");
    Namespaces.ensure(admin, NS);
    admin.resource(ScenarioObjects.flavor(FLAVOR, Map.of())).create();
    admin
        .resource(ScenarioObjects.clusterQueue(CQ, FLAVOR, "cpu", Integer.toString(HELD)))
        .create();
    admin.resource(ScenarioObjects.localQueue(NS, "lq", CQ)).create();
    // What a previous leader left: the whole quota reserved, oldest admission first, the newest
    // of them being evicted (its quota held until its pods are gone).
    Instant first = Instant.now().minusSeconds(3600);
    for (int i = 0; i < HELD; i++) {
      Workload wl = admin.resource(workload("held-" + i)).create();
      admitted(wl, first.plusSeconds(60L * i), i == HELD - 1);
      holding.put(wl.getMetadata().getName(), true);
    }
    ExecutorService creators = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> created = new ArrayList<>();
      for (int i = 0; i < WAITING; i++) {
        Workload wl = workload("waiting-" + i);
        created.add(creators.submit(() -> admin.resource(wl).create()));
      }
      for (Future<?> f : created) {
        f.get();
      }
    } finally {
      creators.shutdownNow();
    }
    String version =
        admin
            .resources(Workload.class)
            .inNamespace(NS)
            .list(new ListOptionsBuilder().withLimit(1L).build())
            .getMetadata()
            .getResourceVersion();
    watch =
        admin
            .resources(Workload.class)
            .inNamespace(NS)
            .watch(new ListOptionsBuilder().withResourceVersion(version).build(), new Holders());
    long lists = ApiServerRequests.count(admin, "LIST", "workloads");
    operator = RunningOperator.startNew(cluster.kubeconfig(), false);
    await().atMost(Duration.ofSeconds(60)).until(operator::isAdmitting);
    workloadListsAtStart = ApiServerRequests.count(admin, "LIST", "workloads") - lists;
  }

  @AfterAll
  static void tearDown() {
    if (watch != null) {
      watch.close();
    }
    if (operator != null) {
      operator.close();
    }
    cluster.close();
  }

  @Test
  @Order(10)
  void aStartRebuildsFromThePagedInformerListWithEveryReservationKept() {
    // The Workload reconciler's informer in pages of 500, and one page each for the Job, JobSet
    // and Pod reconcilers' informers of the Workloads they own (label-selected: none of these);
    // nothing for the bootstrap (it used to add an unpaged LIST of its own).
    assertThat(workloadListsAtStart)
        .as("LISTs of Workloads at start")
        .isEqualTo((HELD + WAITING + 499) / 500 + 3);
    // The quota is full with what the previous leader left: nothing waiting is admitted.
    await()
        .during(Duration.ofSeconds(3))
        .atMost(Duration.ofSeconds(10))
        .until(() -> waitingHolders() == 0);
    assertThat(holding).containsAllEntriesOf(heldHolding());

    // The eviction in progress gives its quota back only once released: then one waiting fits
    // (the released one queues again behind them, from its requeue time). The loop is slow to get
    // there on a loaded machine: it first writes the 1,000 pending reasons, one at a time.
    update("held-" + (HELD - 1), InformerReadsE2EIT::release);
    await().atMost(Duration.ofSeconds(120)).until(() -> waitingHolders() == 1);
    await()
        .during(Duration.ofSeconds(2))
        .atMost(Duration.ofSeconds(5))
        .until(() -> waitingHolders() == 1);
  }

  @Test
  @Order(20)
  void deletingAClusterQueueAndAFlavorInUseWaitsWithoutListing() {
    long workloadLists = ApiServerRequests.count(admin, "LIST", "workloads");
    long queueLists = ApiServerRequests.count(admin, "LIST", "clusterqueues");
    admin.resources(ResourceFlavor.class).withName(FLAVOR).delete();
    admin.resources(ClusterQueue.class).withName(CQ).delete();
    // Held by 10 unfinished Workloads: both stay through more than one 5 s recheck.
    await()
        .during(Duration.ofSeconds(7))
        .atMost(Duration.ofSeconds(15))
        .until(
            () ->
                admin.resources(ClusterQueue.class).withName(CQ).get() != null
                    && admin.resources(ResourceFlavor.class).withName(FLAVOR).get() != null);
    assertThat(waitingHolders()).isEqualTo(1);

    for (String name : Set.copyOf(holding.keySet())) {
      if (holding.get(name)) {
        update(name, InformerReadsE2EIT::finish);
      }
    }
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                admin.resources(ClusterQueue.class).withName(CQ).get() == null
                    && admin.resources(ResourceFlavor.class).withName(FLAVOR).get() == null);
    assertThat(everHeld.stream().filter(n -> n.startsWith("waiting-")))
        .as("nothing admitted into the queue while it went (the one before its deletion only)")
        .hasSize(1);
    assertThat(ApiServerRequests.count(admin, "LIST", "workloads") - workloadLists)
        .as("LISTs of Workloads while a ClusterQueue was deleted")
        .isZero();
    assertThat(ApiServerRequests.count(admin, "LIST", "clusterqueues") - queueLists)
        .as("LISTs of ClusterQueues while a ResourceFlavor was deleted")
        .isZero();
  }

  private static long waitingHolders() {
    return holding.entrySet().stream()
        .filter(e -> e.getKey().startsWith("waiting-") && e.getValue())
        .count();
  }

  private static Map<String, Boolean> heldHolding() {
    Map<String, Boolean> held = new java.util.HashMap<>();
    for (int i = 0; i < HELD; i++) {
      held.put("held-" + i, true);
    }
    return held;
  }

  /** One pod of 1 cpu in the LocalQueue. */
  private static Workload workload(String name) {
    Workload wl = new Workload();
    wl.getMetadata().setNamespace(NS);
    wl.getMetadata().setName(name);
    WorkloadSpec spec = new WorkloadSpec();
    spec.queueName = "lq";
    spec.podSets =
        List.of(
            new PodSet(
                "main",
                1,
                new PodTemplateSpecBuilder()
                    .withNewSpec()
                    .withRestartPolicy("Never")
                    .addNewContainer()
                    .withName("main")
                    .withImage("busybox")
                    .withNewResources()
                    .addToRequests("cpu", new Quantity("1"))
                    .endResources()
                    .endContainer()
                    .endSpec()
                    .build()));
    wl.setSpec(spec);
    return wl;
  }

  /** Writes the admission a previous leader would have written. */
  private static void admitted(Workload wl, Instant at, boolean evicted) {
    WorkloadStatus status = new WorkloadStatus();
    status.admission = new Admission();
    status.admission.clusterQueue = CQ;
    PodSetAssignment ps = new PodSetAssignment();
    ps.name = "main";
    ps.flavors = Map.of("cpu", FLAVOR);
    ps.resourceUsage = Map.of("cpu", new Quantity("1"));
    ps.count = 1;
    status.admission.podSetAssignments = List.of(ps);
    status.conditions = new ArrayList<>();
    status.conditions.add(condition("QuotaReserved", "True", "QuotaReserved", at));
    status.conditions.add(condition("Admitted", "True", "Admitted", at));
    if (evicted) {
      status.conditions.add(condition("Evicted", "True", "Preempted", at.plusSeconds(30)));
    }
    wl.setStatus(status);
    admin.resource(wl).updateStatus();
  }

  /**
   * Its pods are gone: the quota is given back and the Workload requeued, as the Job's side writes
   * it after an eviction. The Requeued time is its new place in the queue: without it, it would
   * queue by its creation second, which it shares with hundreds of the waiting ones (ties go by
   * uid), and might take the freed quota back.
   */
  private static void release(Workload wl) {
    Instant now = Instant.now();
    wl.getStatus().admission = null;
    wl.getStatus().conditions.removeIf(c -> !c.type.equals("Evicted"));
    wl.getStatus().conditions.add(condition("QuotaReserved", "False", "Requeued", now));
    wl.getStatus().conditions.add(condition("Requeued", "True", "Preempted", now));
  }

  private static void finish(Workload wl) {
    wl.getStatus().conditions.add(condition("Finished", "True", "Succeeded", Instant.now()));
  }

  private static Condition condition(String type, String status, String reason, Instant at) {
    Condition c = new Condition(type, status, reason, "set by the test");
    c.lastTransitionTime = at.toString();
    return c;
  }

  /** A status change on the stored Workload, read by name and retried on a conflict. */
  private static void update(String name, Consumer<Workload> change) {
    await()
        .atMost(Duration.ofSeconds(20))
        .ignoreExceptions()
        .until(
            () -> {
              Workload wl = admin.resources(Workload.class).inNamespace(NS).withName(name).get();
              change.accept(wl);
              admin.resource(wl).updateStatus();
              return true;
            });
  }

  /** Which Workloads hold quota and are unfinished, from every watch event. */
  private static final class Holders implements Watcher<Workload> {
    @Override
    public void eventReceived(Action action, Workload wl) {
      WorkloadStatus st = wl.getStatus();
      boolean holds =
          action != Action.DELETED
              && st != null
              && st.admission != null
              && st.conditions != null
              && st.conditions.stream()
                  .anyMatch(c -> c.type.equals("QuotaReserved") && "True".equals(c.status))
              && st.conditions.stream()
                  .noneMatch(c -> c.type.equals("Finished") && "True".equals(c.status));
      holding.put(wl.getMetadata().getName(), holds);
      if (holds) {
        everHeld.add(wl.getMetadata().getName());
      }
    }

    @Override
    public void onClose(WatcherException cause) {}
  }
}
