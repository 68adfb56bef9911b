package dev.berth.e2e;

import static org.awaitility.Awaitility.await;

import dev.berth.api.v1beta1.ClusterQueue;
import dev.berth.api.v1beta1.Workload;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/** Reads a scenario's objects back; every name lives in the scenario's own namespace. */
final class Scenario {
  final KubernetesClient client;
  final String namespace;

  /** Creation time of the last submitted Job. */
  private Instant lastCreated;

  Scenario(String namespace) {
    this(TestApiServer.client(), namespace);
    RunningOperator.shared();
  }

  /** On another cluster (e.g. a ControlPlane), whose operator the caller runs. */
  Scenario(KubernetesClient client, String namespace) {
    this.client = client;
    this.namespace = namespace;
    Namespaces.ensure(client, namespace);
  }

  /**
   * A ClusterQueue {@code cq} of {@code nominalCpu} cpu on a flavor of its own ({@code cq-flavor}),
   * and the LocalQueue {@code lq} of this namespace pointing to it.
   */
  void queue(String cq, String nominalCpu) {
    client.resource(ScenarioObjects.flavor(cq + "-flavor", java.util.Map.of())).create();
    client.resource(ScenarioObjects.clusterQueue(cq, cq + "-flavor", "cpu", nominalCpu)).create();
    client.resource(ScenarioObjects.localQueue(namespace, "lq", cq)).create();
  }

  Job job(String name) {
    return client.batch().v1().jobs().inNamespace(namespace).withName(name).get();
  }

  Job submit(Job job) {
    // creationTimestamp has one-second resolution and orders the queue: the next submission
    // waits until the clock is past the second of the previous one.
    if (lastCreated != null) {
      Instant next = lastCreated.plusSeconds(1);
      await().atMost(Duration.ofSeconds(3)).until(() -> Instant.now().isAfter(next));
    }
    Job created = client.resource(job).create();
    lastCreated = Instant.parse(created.getMetadata().getCreationTimestamp());
    // Creation order is FIFO order; wait for the Workload so the next one is strictly later.
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> workload(job.getMetadata().getName()).isPresent());
    return created;
  }

  boolean running(String name) {
    Job job = job(name);
    return job != null && Boolean.FALSE.equals(job.getSpec().getSuspend());
  }

  Optional<Workload> workload(String jobName) {
    return client.resources(Workload.class).inNamespace(namespace).list().getItems().stream()
        .filter(w -> w.getMetadata().getOwnerReferences() != null)
        .filter(
            w ->
                w.getMetadata().getOwnerReferences().stream()
                    .anyMatch(o -> o.getName().equals(jobName)))
        .findFirst();
  }

  Optional<dev.berth.api.v1beta1.Condition> condition(String jobName, String type) {
    return workload(jobName)
        .filter(w -> w.getStatus() != null && w.getStatus().conditions != null)
        .flatMap(
            w -> w.getStatus().conditions.stream().filter(c -> c.type.equals(type)).findFirst());
  }

  ClusterQueue clusterQueue(String name) {
    return client.resources(ClusterQueue.class).withName(name).get();
  }

  void awaitRunning(String... names) {
    try {
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> java.util.Arrays.stream(names).allMatch(this::running));
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      String report;
      try {
        report = report();
      } catch (RuntimeException unread) {
        report = "(namespace not readable: " + unread + ")";
      }
      throw new AssertionError(
          "not all of " + java.util.Arrays.toString(names) + " running in 30 s\n" + report, e);
    }
  }

  /**
   * What a failed wait saw: the namespace's Jobs, Workloads (with their conditions) and Events, so
   * that a failure in CI, where only the build log is kept, says which step did not happen.
   */
  String report() {
    StringBuilder out = new StringBuilder("namespace ").append(namespace).append(":\n");
    for (Job job : client.batch().v1().jobs().inNamespace(namespace).list().getItems()) {
      out.append(
          String.format(
              "  Job %s rv %s suspend %s annotations %s%n",
              job.getMetadata().getName(),
              job.getMetadata().getResourceVersion(),
              job.getSpec().getSuspend(),
              job.getMetadata().getAnnotations() == null
                  ? "{}"
                  : job.getMetadata().getAnnotations().keySet()));
    }
    for (Workload wl : client.resources(Workload.class).inNamespace(namespace).list().getItems()) {
      out.append(
          String.format(
              "  Workload %s uid %s rv %s created %s%n",
              wl.getMetadata().getName(),
              wl.getMetadata().getUid(),
              wl.getMetadata().getResourceVersion(),
              wl.getMetadata().getCreationTimestamp()));
      if (wl.getStatus() != null && wl.getStatus().conditions != null) {
        for (var c : wl.getStatus().conditions) {
          out.append(
              String.format(
                  "    %s=%s %s at %s: %s%n",
                  c.type, c.status, c.reason, c.lastTransitionTime, c.message));
        }
      }
    }
    var events = client.v1().events().inNamespace(namespace).list().getItems();
    events.sort(java.util.Comparator.comparing(ev -> String.valueOf(ev.getLastTimestamp())));
    for (var ev : events) {
      out.append(
          String.format(
              "  Event %s %s/%s %s: %s%n",
              ev.getLastTimestamp(),
              ev.getInvolvedObject().getKind(),
              ev.getInvolvedObject().getName(),
              ev.getReason(),
              ev.getMessage()));
    }
    return out.toString();
  }

  /** The Job stays suspended for 2 s of cycles (false as soon as it runs). */
  boolean staysSuspended(String name) {
    try {
      await()
          .during(Duration.ofSeconds(2))
          .atMost(Duration.ofSeconds(3))
          .until(() -> !running(name));
      return true;
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      return false;
    }
  }
}
