package dev.berth.operator.status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import dev.berth.api.v1beta1.ClusterQueue;
import dev.berth.api.v1beta1.ClusterQueueSpec;
import dev.berth.api.v1beta1.FlavorQuotas;
import dev.berth.api.v1beta1.LocalQueue;
import dev.berth.api.v1beta1.LocalQueueSpec;
import dev.berth.api.v1beta1.PodSet;
import dev.berth.api.v1beta1.ResourceFlavor;
import dev.berth.api.v1beta1.ResourceFlavorSpec;
import dev.berth.api.v1beta1.ResourceGroup;
import dev.berth.api.v1beta1.ResourceQuota;
import dev.berth.api.v1beta1.Workload;
import dev.berth.api.v1beta1.WorkloadSpec;
import dev.berth.engine.AdmissionEngine;
import dev.berth.operator.MovableClock;
import dev.berth.operator.admission.AdmissionLoop;
import dev.berth.operator.admission.ClusterState;
import dev.berth.operator.admission.WritePool;
import dev.berth.operator.admission.WriterSettings;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NamespaceableResource;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Queue status follows what changed: the first pass writes every queue, later passes only the
 * queues a cycle or an observation touched, each object at most once per {@link
 * StatusPublisher#OBJECT_EVERY}, with a LocalQueue's usage from the engine's admissions of its own
 * workloads. The Kubernetes client is a stand-in (Mockito) that stores every status update and
 * records which object it was; the test thread is the admission loop.
 */
class StatusPublisherTest {
  private final KubernetesClient client = mock(KubernetesClient.class);
  private final MovableClock clock =
      new MovableClock(Instant.parse("2026-12-01T16:00:00Z").toEpochMilli());
  private final ClusterState state = new ClusterState(new AdmissionEngine());
  private final LinkedBlockingQueue<Consumer<ClusterState>> inbox = new LinkedBlockingQueue<>();
  private final WritePool pool = new WritePool(new WriterSettings(2, 100, 1_000, 1_000, 5), state);
  private final List<Duration> pokes = new ArrayList<>();
  private final StatusPublisher publisher =
      new StatusPublisher(client, state, state, clock, pool, pokes::add, 1_000);

  /** "Kind/name" of every status update sent, and the objects as sent. */
  private final List<String> sent = new CopyOnWriteArrayList<>();

  private final List<HasMetadata> bodies = new CopyOnWriteArrayList<>();
  private long version = 100;

  StatusPublisherTest() {
    pool.deliverTo(inbox::add);
    when(client.resource(any(HasMetadata.class)))
        .thenAnswer(
            invocation -> {
              HasMetadata object = invocation.getArgument(0);
              @SuppressWarnings("unchecked")
              NamespaceableResource<HasMetadata> resource = mock(NamespaceableResource.class);
              when(resource.updateStatus()).thenAnswer(i -> stored(object));
              return resource;
            });
    ResourceFlavor flavor = new ResourceFlavor();
    flavor.getMetadata().setName("default");
    flavor.setSpec(new ResourceFlavorSpec());
    state.flavor(flavor);
    teams(List.of("a", "b"));
  }

  private void teams(List<String> names) {
    for (String team : names) {
      state.namespace(team, java.util.Map.of());
      state.clusterQueue(clusterQueue("cq-" + team));
      LocalQueue lq = new LocalQueue();
      lq.getMetadata().setNamespace(team);
      lq.getMetadata().setName("lq");
      lq.getMetadata().setResourceVersion("1");
      lq.setSpec(new LocalQueueSpec("cq-" + team));
      state.localQueue(lq);
    }
  }

  @AfterEach
  void close() {
    pool.close();
  }

  private synchronized HasMetadata stored(HasMetadata object) {
    String name =
        object.getMetadata().getNamespace() == null
            ? object.getMetadata().getName()
            : object.getMetadata().getNamespace() + "/" + object.getMetadata().getName();
    sent.add(object.getKind() + "/" + name);
    HasMetadata out = Serialization.clone(object);
    out.getMetadata().setResourceVersion(String.valueOf(version++));
    bodies.add(out);
    return out;
  }

  private static ClusterQueue clusterQueue(String name) {
    ClusterQueue cq = new ClusterQueue();
    cq.getMetadata().setName(name);
    cq.getMetadata().setResourceVersion("1");
    cq.setSpec(new ClusterQueueSpec());
    cq.getSpec().namespaceSelector = new LabelSelector();
    cq.getSpec().resourceGroups =
        List.of(
            new ResourceGroup(
                List.of("cpu"),
                List.of(new FlavorQuotas("default", List.of(new ResourceQuota("cpu", "4"))))));
    return cq;
  }

  private static Workload pending(String team, String name) {
    Workload wl = new Workload();
    wl.getMetadata().setName(name);
    wl.getMetadata().setNamespace(team);
    wl.getMetadata().setUid(team + "-" + name);
    wl.getMetadata().setResourceVersion("5");
    wl.getMetadata().setCreationTimestamp("2026-12-01T15:00:00Z");
    wl.setSpec(new WorkloadSpec());
    wl.getSpec().queueName = "lq";
    wl.getSpec().podSets =
        List.of(
            new PodSet(
                "main",
                1,
                new PodTemplateSpecBuilder()
                    .withNewSpec()
                    .addNewContainer()
                    .withName("c")
                    .withNewResources()
                    .addToRequests("cpu", new Quantity("1"))
                    .endResources()
                    .endContainer()
                    .endSpec()
                    .build()));
    return wl;
  }

  /** One cycle and the publisher after it; then every write it queued is applied. */
  private void cycleAndPublish() throws InterruptedException {
    cycleAndPublish(publisher, pool, inbox);
  }

  private void cycleAndPublish(
      StatusPublisher p, WritePool writers, LinkedBlockingQueue<Consumer<ClusterState>> replies)
      throws InterruptedException {
    var result = state.engine().runCycle(clock.millis());
    p.accept(new AdmissionLoop.CycleOutcome(result, 0));
    while (writers.outstanding() > 0) {
      Consumer<ClusterState> r = replies.poll(10, TimeUnit.SECONDS);
      assertThat(r).as("a status write came back").isNotNull();
      r.accept(state);
    }
  }

  @Test
  void theFirstPassWritesEveryQueueThenOnlyTheTouchedOnes() throws Exception {
    cycleAndPublish();
    assertThat(sent)
        .containsExactlyInAnyOrder(
            "ClusterQueue/cq-a", "ClusterQueue/cq-b", "LocalQueue/a/lq", "LocalQueue/b/lq");

    sent.clear();
    clock.advance(StatusPublisher.OBJECT_EVERY.toMillis() + 1);
    state.workload(pending("a", "w"));
    cycleAndPublish();
    assertThat(sent)
        .as("team b's queues did not change and are not even looked at")
        .containsExactlyInAnyOrder("ClusterQueue/cq-a", "LocalQueue/a/lq");
    LocalQueue lq =
        bodies.stream()
            .filter(LocalQueue.class::isInstance)
            .map(LocalQueue.class::cast)
            .reduce((first, last) -> last)
            .orElseThrow();
    assertThat(lq.getStatus().reservingWorkloads).isEqualTo(1);
    assertThat(lq.getStatus().flavorsReservation.get(0).resources.get(0).total)
        .as("the LocalQueue's usage, from the engine's admission of its workload")
        .isEqualTo(new Quantity("1"));

    sent.clear();
    clock.advance(StatusPublisher.OBJECT_EVERY.toMillis() + 1);
    cycleAndPublish();
    assertThat(sent).as("nothing touched: nothing written").isEmpty();
  }

  @Test
  void aQueueIsWrittenAtMostOncePerIntervalAndTheHeldChangeLater() throws Exception {
    cycleAndPublish();
    sent.clear();
    clock.advance(StatusPublisher.PASS_EVERY.toMillis());
    state.workload(pending("a", "w1"));
    cycleAndPublish();
    assertThat(sent).as("written within 5 s of the first write: held").isEmpty();
    assertThat(pokes).as("a wake-up asked for when it falls due").isNotEmpty();

    clock.advance(StatusPublisher.OBJECT_EVERY.toMillis());
    cycleAndPublish();
    assertThat(sent).containsExactlyInAnyOrder("ClusterQueue/cq-a", "LocalQueue/a/lq");
  }

  /**
   * Passes one pass-interval apart, in real time too (the shared budget refills on the monotonic
   * clock), until {@code done}.
   */
  private void passUntil(
      StatusPublisher p,
      WritePool writers,
      LinkedBlockingQueue<Consumer<ClusterState>> replies,
      BooleanSupplier done) {
    Awaitility.await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> {
              clock.advance(StatusPublisher.PASS_EVERY.toMillis());
              cycleAndPublish(p, writers, replies);
              return done.getAsBoolean();
            });
  }

  private static final List<String> SIX_TEAMS = List.of("t0", "t1", "t2", "t3", "t4", "t5");

  /** One writer: writes leave in the order the publisher handed them over. */
  private WritePool oneWriter(LinkedBlockingQueue<Consumer<ClusterState>> replies) {
    WritePool one = new WritePool(new WriterSettings(1, 100, 1_000, 1_000, 5), state);
    one.deliverTo(replies::add);
    return one;
  }

  @Test
  void allQueuesShareOneBudgetAndEveryStatusIsWrittenInTheEnd() throws Exception {
    teams(SIX_TEAMS); // with a and b: 8 ClusterQueues and 8 LocalQueues
    var replies = new LinkedBlockingQueue<Consumer<ClusterState>>();
    try (WritePool one = oneWriter(replies)) {
      // A burst of 4, then 2 a second.
      StatusPublisher p = new StatusPublisher(client, state, state, clock, one, pokes::add, 2);
      cycleAndPublish(p, one, replies);
      assertThat(sent).as("the burst, not one write per queue").hasSize(4);
      assertThat(pokes).as("a wake-up for when the budget refills").isNotEmpty();

      passUntil(p, one, replies, () -> sent.size() >= 16);
      assertThat(sent).as("each status once: none was lost while held").doesNotHaveDuplicates();
      assertThat(sent).hasSize(16);
    }
  }

  @Test
  void aChangedActiveConditionGoesBeforeChangedCounts() throws Exception {
    teams(SIX_TEAMS);
    var replies = new LinkedBlockingQueue<Consumer<ClusterState>>();
    try (WritePool one = oneWriter(replies)) {
      // A burst of 8, then 4 a second.
      StatusPublisher p = new StatusPublisher(client, state, state, clock, one, pokes::add, 4);
      passUntil(p, one, replies, () -> sent.size() >= 16);
      // cq-t5's status becomes the one written last, so that by age alone it would go last.
      sent.clear();
      clock.advance(StatusPublisher.OBJECT_EVERY.toMillis() + 1);
      state.workload(pending("t5", "first"));
      passUntil(p, one, replies, () -> sent.contains("ClusterQueue/cq-t5"));
      sent.clear();
      clock.advance(StatusPublisher.OBJECT_EVERY.toMillis() + 1);
      // Counts change in every team's queues; one ClusterQueue is held (Active becomes False).
      for (String team : SIX_TEAMS) {
        state.workload(pending(team, "w"));
      }
      ClusterQueue held = clusterQueue("cq-t5");
      held.getMetadata().setResourceVersion("2");
      held.getSpec().stopPolicy = dev.berth.api.v1beta1.StopPolicy.Hold;
      state.clusterQueue(held);
      passUntil(p, one, replies, () -> !sent.isEmpty());
      assertThat(sent.get(0)).isEqualTo("ClusterQueue/cq-t5");
    }
  }
}
