package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.api.v1beta1.Condition;
import dev.berth.api.v1beta1.Workload;
import dev.berth.api.v1beta1.WorkloadStatus;
import dev.berth.operator.Clients;
import dev.berth.testing.Workloads;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Watch events through the operator's client, on the real API server: a Workload's events arrive as
 * Workloads, decoded once (no second conversion pass), with what the API server sent; a client
 * without the kinds registered, watching the same Workload, converts every event a second time.
 */
class TypedWatchE2EIT {
  private static final String NS = "typed-watch";
  private final KubernetesClient admin = TestApiServer.client();

  /** fabric8's serialization, counting its conversions to a Workload. */
  private static final class Counting extends KubernetesSerialization {
    final AtomicInteger conversions = new AtomicInteger();

    @Override
    public <T> T convertValue(Object value, Class<T> type) {
      if (type == Workload.class) {
        conversions.incrementAndGet();
      }
      return super.convertValue(value, type);
    }
  }

  @Test
  void workloadEventsAreDecodedOnceIntoWorkloads() throws Exception {
    Namespaces.ensure(admin, NS);
    Counting registered = (Counting) Clients.withKinds(new Counting());
    Counting plain = new Counting();
    List<Workload> heard = new CopyOnWriteArrayList<>();
    List<Workload> heardPlain = new CopyOnWriteArrayList<>();
    try (KubernetesClient operator = client(registered);
        KubernetesClient other = client(plain);
        Watch w1 = operator.resources(Workload.class).inNamespace(NS).watch(into(heard));
        Watch w2 = other.resources(Workload.class).inNamespace(NS).watch(into(heardPlain))) {
      Workload created =
          admin
              .resource(Workloads.named("w").in(NS).queue("lq").request("cpu", "1").build())
              .create();
      Workload withStatus = admin.resources(Workload.class).resource(created).get();
      WorkloadStatus status = new WorkloadStatus();
      Condition probe = new Condition("Probe", "False", "Probing", "waiting");
      probe.lastTransitionTime = "2026-12-06T00:00:00Z";
      status.conditions = List.of(probe);
      withStatus.setStatus(status);
      admin.resource(withStatus).updateStatus();

      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> hasCondition(heard) && heardPlain.size() >= heard.size());
      assertThat(heard).allSatisfy(wl -> assertThat(wl).isExactlyInstanceOf(Workload.class));
      assertThat(heard.get(0).getSpec().queueName).isEqualTo("lq");
      assertThat(heard.get(0).getSpec().podSets.get(0).template.getSpec().getContainers())
          .singleElement()
          .satisfies(c -> assertThat(c.getResources().getRequests()).containsKey("cpu"));
      assertThat(registered.conversions).as("the operator's client converts nothing").hasValue(0);
      assertThat(plain.conversions.get())
          .as("without the registration, every event is converted again")
          .isGreaterThanOrEqualTo(2);
    }
  }

  @Test
  void whatTheOperatorsClientReadsComesWithoutManagedFieldsAndItsWritesKeepThem() throws Exception {
    Namespaces.ensure(admin, NS);
    List<Workload> heard = new CopyOnWriteArrayList<>();
    // The suite's admin client is the operator's kind too: the API server's view through
    // fabric8's own decoding.
    try (KubernetesClient operator = client(Clients.serialization());
        KubernetesClient server = client(new KubernetesSerialization());
        Watch watch = operator.resources(Workload.class).inNamespace(NS).watch(into(heard))) {
      Workload created =
          admin
              .resource(Workloads.named("lean").in(NS).queue("lq").request("cpu", "1").build())
              .create();
      Workload withStatus = admin.resources(Workload.class).resource(created).get();
      WorkloadStatus status = new WorkloadStatus();
      Condition probe = new Condition("Probe", "False", "Probing", "waiting");
      probe.lastTransitionTime = "2026-12-06T00:00:00Z";
      status.conditions = new java.util.ArrayList<>(List.of(probe));
      withStatus.setStatus(status);
      admin.resource(withStatus).updateStatus();
      List<String> managers = managers(server.resources(Workload.class).resource(created).get());
      assertThat(managers).as("the API server keeps them: spec and status writers").hasSize(2);

      // Read every way the operator reads: a GET, a list page, watch events.
      Workload read = operator.resources(Workload.class).inNamespace(NS).withName("lean").get();
      assertThat(read.getMetadata().getManagedFields()).isNullOrEmpty();
      assertThat(read.getStatus().conditions)
          .singleElement()
          .extracting(c -> c.message)
          .isEqualTo("waiting");
      assertThat(operator.resources(Workload.class).inNamespace(NS).list().getItems())
          .allSatisfy(wl -> assertThat(wl.getMetadata().getManagedFields()).isNullOrEmpty());
      await().atMost(Duration.ofSeconds(30)).until(() -> hasCondition(heard));
      assertThat(heard)
          .allSatisfy(wl -> assertThat(wl.getMetadata().getManagedFields()).isNullOrEmpty());

      // Writes of what it read (no managedFields): the API server keeps the live ones.
      read.getStatus().conditions.get(0).message = "written by the operator's client";
      Workload reply = operator.resource(read).updateStatus();
      assertThat(reply.getMetadata().getManagedFields()).isNullOrEmpty();
      reply.getMetadata().setLabels(java.util.Map.of("lean", "yes"));
      operator.resource(reply).update();
      Workload stored = server.resources(Workload.class).resource(created).get();
      assertThat(stored.getMetadata().getLabels()).containsEntry("lean", "yes");
      assertThat(stored.getStatus().conditions.get(0).message)
          .isEqualTo("written by the operator's client");
      assertThat(managers(stored)).containsAll(managers);
    }
  }

  /** Each managedFields entry as "manager operation subresource". */
  private static List<String> managers(Workload wl) {
    return wl.getMetadata().getManagedFields().stream()
        .map(m -> m.getManager() + " " + m.getOperation() + " " + m.getSubresource())
        .toList();
  }

  private static boolean hasCondition(List<Workload> heard) {
    return heard.stream()
        .anyMatch(
            wl ->
                wl.getStatus() != null
                    && wl.getStatus().conditions != null
                    && wl.getStatus().conditions.stream()
                        .anyMatch(c -> "waiting".equals(c.message)));
  }

  private static KubernetesClient client(KubernetesSerialization serialization) {
    return Clients.builder(Duration.ofSeconds(30))
        .withConfig(Config.fromKubeconfig(TestApiServer.kubeconfigYaml()))
        .withKubernetesSerialization(serialization)
        .build();
  }

  private static <T> Watcher<T> into(List<T> heard) {
    return new Watcher<>() {
      @Override
      public void eventReceived(Action action, T resource) {
        heard.add(resource);
      }

      @Override
      public void onClose(WatcherException cause) {}
    };
  }
}
