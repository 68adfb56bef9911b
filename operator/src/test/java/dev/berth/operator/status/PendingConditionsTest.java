package dev.berth.operator.status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import dev.berth.api.v1beta1.Workload;
import dev.berth.engine.AdmissionEngine;
import dev.berth.operator.MovableClock;
import dev.berth.operator.admission.AdmissionLoop;
import dev.berth.operator.admission.ClusterState;
import dev.berth.operator.admission.WritePool;
import dev.berth.operator.admission.WriterSettings;
import dev.berth.operator.events.EventRecorder;
import dev.berth.testing.ClusterQueues;
import dev.berth.testing.LocalQueues;
import dev.berth.testing.Quota;
import dev.berth.testing.ResourceFlavors;
import dev.berth.testing.Workloads;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NamespaceableResource;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Pending reasons share one budget of writes (here 5 a second, a burst of 10): a pass sends what
 * the budget holds, and while more wait than it holds, the next pass comes when the budget has
 * refilled to its burst ({@link PendingConditions#BACKLOG_PASS_EVERY}), not every second: each pass
 * looks at every pending workload, and one a second chose no more writes. The Kubernetes client is
 * a stand-in (Mockito) that stores each status update; the test thread is the admission loop; the
 * clock moves only when the test moves it (the budget refills in real time, so between two passes
 * of a test it stays empty).
 */
class PendingConditionsTest {
  private final KubernetesClient client = mock(KubernetesClient.class);
  private final MovableClock clock =
      new MovableClock(Instant.parse("2026-12-06T07:00:00Z").toEpochMilli());
  private final ClusterState state = new ClusterState(new AdmissionEngine());
  private final LinkedBlockingQueue<Consumer<ClusterState>> inbox = new LinkedBlockingQueue<>();
  private final WritePool pool = new WritePool(new WriterSettings(2, 100, 1_000, 1_000, 5), state);
  private final PendingConditions conditions =
      new PendingConditions(
          client,
          state,
          new EventRecorder(event -> {}),
          clock,
          poke -> {},
          new SimpleMeterRegistry(),
          new StartEstimates(state, clock, poke -> {}),
          pool,
          5,
          dev.berth.operator.kube.StatusWrite.decoded(client));

  /** The names of the Workloads whose pending condition was written, in order. */
  private final List<String> written = new CopyOnWriteArrayList<>();

  PendingConditionsTest() {
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
    state.flavor(ResourceFlavors.named("default").build());
    state.namespace("team", java.util.Map.of());
    // Room for none of the workloads: every one stays pending.
    state.clusterQueue(ClusterQueues.named("cq").flavor("default", Quota.cpu("0")).build());
    state.localQueue(LocalQueues.named("lq").in("team").clusterQueue("cq").build());
  }

  @AfterEach
  void close() {
    pool.close();
  }

  @Test
  void aBacklogIsWrittenAtTheBudgetsRateWithAPassEveryTwoSeconds() throws Exception {
    for (int i = 0; i < 30; i++) {
      state.workload(pending(i));
    }
    pass();
    assertThat(written).as("no reason before a workload has waited 2 s").isEmpty();

    clock.advance(PendingConditions.FIRST_AFTER.toMillis());
    assertThat(conditions.passDue()).isTrue();
    pass();
    assertThat(written).as("the budget's burst: two seconds of writes").hasSize(10);
    assertThat(written).doesNotHaveDuplicates();

    // 20 are left waiting for the budget: no pass for two seconds, however many cycles run.
    clock.advance(PendingConditions.PASS_EVERY.toMillis());
    assertThat(conditions.passDue()).isFalse();
    pass();
    assertThat(written).hasSize(10);
    clock.advance(
        PendingConditions.BACKLOG_PASS_EVERY.minus(PendingConditions.PASS_EVERY).toMillis());
    assertThat(conditions.passDue()).isTrue();
  }

  @Test
  void withoutABacklogThePassComesEverySecond() throws Exception {
    for (int i = 0; i < 4; i++) {
      state.workload(pending(i));
    }
    pass();
    clock.advance(PendingConditions.FIRST_AFTER.toMillis());
    pass();
    assertThat(written).hasSize(4);
    clock.advance(PendingConditions.PASS_EVERY.toMillis() - 1);
    assertThat(conditions.passDue()).isFalse();
    clock.advance(1);
    assertThat(conditions.passDue()).isTrue();
  }

  /** One cycle and a pass after it; then every write it queued is applied. */
  private void pass() throws InterruptedException {
    var result = state.engine().runCycle(clock.millis());
    conditions.accept(new AdmissionLoop.CycleOutcome(result, 0));
    while (pool.outstanding() > 0) {
      Consumer<ClusterState> reply = inbox.poll(10, TimeUnit.SECONDS);
      assertThat(reply).as("a status write came back").isNotNull();
      reply.accept(state);
    }
  }

  private synchronized HasMetadata stored(HasMetadata object) {
    written.add(object.getMetadata().getName());
    HasMetadata out = Serialization.clone(object);
    out.getMetadata()
        .setResourceVersion(
            String.valueOf(Long.parseLong(object.getMetadata().getResourceVersion()) + 1));
    return out;
  }

  private static Workload pending(int i) {
    String name = String.format("w-%02d", i);
    return Workloads.named(name)
        .in("team")
        .uid(name)
        .resourceVersion("5")
        .created(Instant.parse("2026-12-06T06:00:00Z").plusSeconds(i).toString())
        .queue("lq")
        .request("cpu", "1")
        .build();
  }
}
