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
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NamespaceableResource;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
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
                        ResourceFlavor stored = Serialization.clone(sent);
                        stored.getMetadata().setResourceVersion(String.valueOf(version++));
                        written.add(stored);
                        return stored;
                      });
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
}
