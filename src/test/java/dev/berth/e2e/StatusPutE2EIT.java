package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.berth.api.v1beta1.Condition;
import dev.berth.api.v1beta1.Workload;
import dev.berth.api.v1beta1.WorkloadStatus;
import dev.berth.operator.Clients;
import dev.berth.operator.kube.Copies;
import dev.berth.operator.kube.SharedVersions;
import dev.berth.operator.kube.StatusPut;
import dev.berth.operator.kube.StatusWrite;
import dev.berth.testing.Workloads;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The operator's Workload status writes on the real API server: the copy it keeps after a write
 * (the reply read only for its version) is what the API server stored, as a read through the
 * operator's client gives it; refusals carry the API server's code and message; and a watch that
 * hears the write hands out the kept instance instead of decoding it again.
 */
class StatusPutE2EIT {
  private static final String NS = "status-put";
  private final KubernetesClient admin = TestApiServer.client();

  @Test
  void theCopyWrittenIsWhatTheApiServerStored() {
    Namespaces.ensure(admin, NS);
    try (KubernetesClient operator = operatorClient()) {
      Workload cached = created(operator, "stored");
      Workload copy = Copies.forStatus(cached);
      copy.setStatus(status("Probe", "written by StatusPut"));
      String before = cached.getMetadata().getResourceVersion();

      Workload written = StatusPut.replace(operator, copy);

      assertThat(written).isSameAs(copy);
      assertThat(written.getMetadata().getResourceVersion()).isNotEqualTo(before);
      Workload read = operator.resources(Workload.class).inNamespace(NS).withName("stored").get();
      assertThat(operator.getKubernetesSerialization().asJson(written))
          .isEqualTo(operator.getKubernetesSerialization().asJson(read));
      // The spec the status write carried is the cached one, and the API server kept it.
      assertThat(read.getSpec().queueName).isEqualTo("lq");

      // The writers' form sends no spec at all: the API server keeps the stored one.
      Workload next = Copies.forStatus(written);
      next.setStatus(status("Probe", "written without the spec"));
      Workload again = StatusWrite.lean(operator, Clients.versions(operator)).replace(next);
      Workload readAgain =
          operator.resources(Workload.class).inNamespace(NS).withName("stored").get();
      assertThat(operator.getKubernetesSerialization().asJson(again))
          .isEqualTo(operator.getKubernetesSerialization().asJson(readAgain));
      assertThat(operator.getKubernetesSerialization().asJson(readAgain.getSpec()))
          .isEqualTo(operator.getKubernetesSerialization().asJson(read.getSpec()))
          .contains("\"podSets\"");
      assertThat(readAgain.getStatus().conditions.get(0).message)
          .isEqualTo("written without the spec");

      // The write is recorded as fabric8's own status write by the same client is: the same
      // manager, an Update of the status subresource.
      Workload other = created(operator, "stored-by-fabric8");
      Workload otherCopy = Copies.forStatus(other);
      otherCopy.setStatus(status("Probe", "written by fabric8"));
      operator.resource(otherCopy).updateStatus();
      // fabric8's own decoding, which keeps managedFields (the operator's drops them).
      try (KubernetesClient server =
          Clients.builder(Duration.ofSeconds(30))
              .withConfig(Config.fromKubeconfig(TestApiServer.kubeconfigYaml()))
              .withKubernetesSerialization(new KubernetesSerialization())
              .build()) {
        assertThat(statusManagers(server, "stored"))
            .isNotEmpty()
            .isEqualTo(statusManagers(server, "stored-by-fabric8"));
      }
    }
  }

  /** The managers of the Workload's status-subresource Updates, as the API server keeps them. */
  private static List<String> statusManagers(KubernetesClient server, String name) {
    return server
        .resources(Workload.class)
        .inNamespace(NS)
        .withName(name)
        .get()
        .getMetadata()
        .getManagedFields()
        .stream()
        .filter(m -> "status".equals(m.getSubresource()))
        .map(m -> m.getManager() + " " + m.getOperation())
        .toList();
  }

  @Test
  void refusalsCarryTheApiServersCodeAndMessage() {
    Namespaces.ensure(admin, NS);
    try (KubernetesClient operator = operatorClient()) {
      Workload cached = created(operator, "refused");
      Workload first = Copies.forStatus(cached);
      first.setStatus(status("Probe", "first"));
      StatusPut.replace(operator, first);

      // The version it was made from is gone: a conflict, the stored status unchanged.
      Workload stale = Copies.forStatus(cached);
      stale.setStatus(status("Probe", "stale"));
      assertThatThrownBy(() -> StatusPut.replace(operator, stale))
          .isInstanceOfSatisfying(
              KubernetesClientException.class,
              e -> {
                assertThat(e.getCode()).isEqualTo(409);
                assertThat(e.getStatus().getReason()).isEqualTo("Conflict");
              });

      // Invalid against the CRD's schema: 422 naming the field.
      Workload invalid = Copies.forStatus(first);
      invalid.setStatus(status("Probe", "bad"));
      invalid.getStatus().conditions.get(0).status = "Maybe";
      assertThatThrownBy(() -> StatusPut.replace(operator, invalid))
          .isInstanceOfSatisfying(
              KubernetesClientException.class,
              e -> {
                assertThat(e.getCode()).isEqualTo(422);
                assertThat(e.getMessage()).contains("status.conditions[0].status");
              });

      // Gone: 404.
      Workload missing = Copies.forStatus(first);
      missing.getMetadata().setName("never-created");
      assertThatThrownBy(() -> StatusPut.replace(operator, missing))
          .isInstanceOfSatisfying(
              KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(404));

      Workload stored =
          operator.resources(Workload.class).inNamespace(NS).withName("refused").get();
      assertThat(stored.getStatus().conditions.get(0).message).isEqualTo("first");
    }
  }

  @Test
  void aWatchHearingTheWriteHandsOutTheKeptCopy() {
    Namespaces.ensure(admin, NS);
    try (KubernetesClient operator = operatorClient()) {
      SharedVersions versions = Clients.versions(operator);
      Workload cached = created(operator, "echo");
      String before = cached.getMetadata().getResourceVersion();
      Workload copy = Copies.forStatus(cached);
      copy.setStatus(status("Probe", "echoed"));
      Workload written = StatusWrite.lean(operator, versions).replace(copy);

      // A watch from the version before the write replays it; the operator's client hands out
      // the copy it keeps; a client of its own decodes the event.
      List<Workload> heard = new CopyOnWriteArrayList<>();
      List<Workload> heardElsewhere = new CopyOnWriteArrayList<>();
      try (KubernetesClient other = operatorClient();
          Watch mine = watchFrom(operator, before, heard);
          Watch theirs = watchFrom(other, before, heardElsewhere)) {
        await().atMost(Duration.ofSeconds(30)).until(() -> !heard.isEmpty());
        await().atMost(Duration.ofSeconds(30)).until(() -> !heardElsewhere.isEmpty());
        assertThat(heard.get(0)).isSameAs(written);
        assertThat(heardElsewhere.get(0)).isNotSameAs(written);
        assertThat(heardElsewhere.get(0).getStatus().conditions.get(0).message).isEqualTo("echoed");
        assertThat(operator.getKubernetesSerialization().asJson(heardElsewhere.get(0)))
            .isEqualTo(operator.getKubernetesSerialization().asJson(written));
      }
    }
  }

  private Workload created(KubernetesClient operator, String name) {
    admin.resource(Workloads.named(name).in(NS).queue("lq").request("cpu", "1").build()).create();
    return operator.resources(Workload.class).inNamespace(NS).withName(name).get();
  }

  private static WorkloadStatus status(String type, String message) {
    WorkloadStatus status = new WorkloadStatus();
    Condition c = new Condition(type, "False", "Probing", message);
    c.lastTransitionTime = "2026-12-06T15:00:00Z";
    status.conditions = new ArrayList<>(List.of(c));
    return status;
  }

  private static Watch watchFrom(KubernetesClient client, String version, List<Workload> heard) {
    return client
        .resources(Workload.class)
        .inNamespace(NS)
        .withResourceVersion(version)
        .watch(
            new Watcher<>() {
              @Override
              public void eventReceived(Action action, Workload resource) {
                if (action == Action.MODIFIED) {
                  heard.add(resource);
                }
              }

              @Override
              public void onClose(WatcherException cause) {}
            });
  }

  private static KubernetesClient operatorClient() {
    return Clients.builder(Duration.ofSeconds(30))
        .withConfig(Config.fromKubeconfig(TestApiServer.kubeconfigYaml()))
        .build();
  }
}
