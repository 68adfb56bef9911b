package dev.berth.operator.capacity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import dev.berth.api.v1beta1.ClusterQueue;
import dev.berth.api.v1beta1.ResourceFlavor;
import dev.berth.api.v1beta1.ResourceFlavorSpec;
import dev.berth.engine.AdmissionEngine;
import dev.berth.operator.MovableClock;
import dev.berth.operator.admission.ClusterState;
import dev.berth.operator.events.EventRecorder;
import dev.berth.operator.metrics.CapacityMetrics;
import dev.berth.testing.ClusterQueues;
import dev.berth.testing.LocalQueues;
import dev.berth.testing.Quota;
import dev.berth.testing.Workloads;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.NamespaceableResource;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * ResourceFlavor status under admissions: the figures admissions move are written at most once per
 * {@link CapacityPublisher#FIGURES_EVERY}, anything else at once. The Kubernetes client is a
 * stand-in (Mockito) that stores each status update; the state is fed directly, as the loop would.
 */
class CapacityPublisherTest {
  private final KubernetesClient client = mock(KubernetesClient.class);
  private final MovableClock clock =
      new MovableClock(Instant.parse("2026-12-01T16:00:00Z").toEpochMilli());
  private final CapacityObserver nodes = new CapacityObserver();
  private final ClusterState state = new ClusterState(new AdmissionEngine()).register(nodes);
  private final List<ResourceFlavor> written = new CopyOnWriteArrayList<>();
  private final CapacityPublisher publisher =
      new CapacityPublisher(
          client,
          state,
          nodes,
          state::flavor,
          CapacitySettings.defaults(),
          new CapacityMetrics(new SimpleMeterRegistry()),
          // Events go nowhere: posted through the mocked client, they would use it from the
          // recorder's threads while the test stubs and calls it (Mockito mocks are not
          // thread-safe).
          new EventRecorder(event -> {}),
          clock,
          () -> {});
  private long version = 10;

  /** Status writes sent. */
  private final AtomicInteger sends = new AtomicInteger();

  /** The next status write is stored, then answered with this code (0: answered as stored). */
  private final AtomicInteger appliedThenFailing = new AtomicInteger();

  CapacityPublisherTest() {
    when(client.resource(any(ResourceFlavor.class)))
        .thenAnswer(
            invocation -> {
              ResourceFlavor sent = invocation.getArgument(0);
              @SuppressWarnings("unchecked")
              NamespaceableResource<ResourceFlavor> resource = mock(NamespaceableResource.class);
              when(resource.updateStatus())
                  .thenAnswer(
                      i -> {
                        sends.incrementAndGet();
                        ResourceFlavor stored = Serialization.clone(sent);
                        stored.getMetadata().setResourceVersion(String.valueOf(version++));
                        written.add(stored);
                        int code = appliedThenFailing.getAndSet(0);
                        if (code != 0) {
                          throw new KubernetesClientException(
                              new StatusBuilder().withCode(code).withMessage("applied").build());
                        }
                        return stored;
                      });
              when(resource.get())
                  .thenAnswer(i -> written.isEmpty() ? null : written.get(written.size() - 1));
              return resource;
            });
    ResourceFlavor flavor = new ResourceFlavor();
    flavor.getMetadata().setName("default");
    flavor.getMetadata().setResourceVersion("1");
    flavor.setSpec(new ResourceFlavorSpec());
    state.flavor(flavor);
    state.node(
        new NodeBuilder()
            .withNewMetadata()
            .withName("n1")
            .endMetadata()
            .withNewSpec()
            .endSpec()
            .withNewStatus()
            .addToAllocatable("cpu", new Quantity("16"))
            .addNewCondition()
            .withType("Ready")
            .withStatus("True")
            .endCondition()
            .endStatus()
            .build());
    state.namespace("team", Map.of());
    state.clusterQueue(clusterQueue("8", "1"));
    state.localQueue(LocalQueues.named("lq").in("team").clusterQueue("cq").build());
  }

  @AfterEach
  void close() {
    publisher.close();
  }

  private static ClusterQueue clusterQueue(String cpu, String resourceVersion) {
    return ClusterQueues.named("cq")
        .flavor("default", Quota.cpu(cpu))
        .resourceVersion(resourceVersion)
        .build();
  }

  /** A Workload of one 1-cpu pod, admitted by the engine's next cycle. */
  private void admit(String name) {
    state.workload(
        Workloads.named(name)
            .in("team")
            .uid(name)
            .resourceVersion("5")
            .created("2026-12-01T15:00:00Z")
            .queue("lq")
            .podSet("main", 1)
            .request("cpu", "1")
            .build());
    assertThat(state.engine().runCycle(clock.millis()).admissions()).hasSize(1);
  }

  private String lastReserved() {
    return written.get(written.size() - 1).getStatus().resources.get(0).reserved;
  }

  @Test
  void figuresAdmissionsMoveAreWrittenAtMostOncePerIntervalAnythingElseAtOnce() {
    publisher.refresh();
    assertThat(written).as("the first status, at once").hasSize(1);

    admit("w1");
    clock.advance(1_000);
    publisher.refresh();
    admit("w2");
    clock.advance(1_000);
    publisher.refresh();
    assertThat(written).as("only reserved changed: held back").hasSize(1);

    clock.advance(CapacityPublisher.FIGURES_EVERY.toMillis());
    publisher.refresh();
    assertThat(written).hasSize(2);
    assertThat(lastReserved()).as("the held figures, as they are now").isEqualTo("2");

    admit("w3");
    state.clusterQueue(clusterQueue("10", "2"));
    clock.advance(1_000);
    publisher.refresh();
    assertThat(written).as("the quota changed: written at once").hasSize(3);
    assertThat(written.get(2).getStatus().resources.get(0).committed).isEqualTo("10");
    assertThat(lastReserved()).isEqualTo("3");
  }

  /**
   * The writing client sends a status once: one applied and then answered 500 (or with no reply) is
   * read back and, the stored flavor carrying it at a newer version, taken as written. Taken for
   * "not written", the flavor held would keep its old status and version, and the next refresh
   * would send the same status again.
   */
  @Test
  void aStatusAppliedThenAnswered500IsReadBackAsWrittenAndNotSentAgain() {
    appliedThenFailing.set(500);
    publisher.refresh();
    assertThat(sends).as("sent once").hasValue(1);
    ResourceFlavor held = state.flavors().iterator().next();
    assertThat(held.getMetadata().getResourceVersion())
        .as("the version read back is the one held")
        .isEqualTo("10");

    clock.advance(1_000);
    publisher.refresh();
    assertThat(sends).as("nothing new: not sent again").hasValue(1);
  }

  @Test
  void aStoredFlavorShowsAStatusWriteOnlyWhenItCarriesThatStatus() {
    publisher.refresh();
    ResourceFlavor stored = written.get(0);
    ResourceFlavor same = Serialization.clone(stored);
    assertThat(CapacityPublisher.shows(stored, same)).isTrue();
    ResourceFlavor other = Serialization.clone(stored);
    other.getStatus().resources.get(0).reserved = "7";
    assertThat(CapacityPublisher.shows(stored, other)).isFalse();
    ResourceFlavor none = Serialization.clone(stored);
    none.setStatus(null);
    assertThat(CapacityPublisher.shows(none, same)).isFalse();
  }
}
