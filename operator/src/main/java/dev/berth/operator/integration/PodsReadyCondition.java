package dev.berth.operator.integration;

import dev.berth.api.v1beta1.Workload;
import dev.berth.engine.checks.PodsReadyTimeout;
import dev.berth.operator.admission.StatusConditions;
import dev.berth.operator.events.EventRecorder;
import dev.berth.operator.kube.Copies;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Instant;

/**
 * waitForPodsReady: an admitted Workload's PodsReady condition from its owner's pods, True once
 * every pod it was admitted with is ready or has succeeded. One status write (with the
 * resourceVersion read) when the condition changes, and an Event on each transition.
 */
public final class PodsReadyCondition {
  private PodsReadyCondition() {}

  static <T extends HasMetadata> void sync(
      KubernetesClient client,
      Integration<T> integration,
      T owner,
      Workload workload,
      EventRecorder events,
      Instant now) {
    sync(client, integration.readyPods(owner), workload, events, now);
  }

  /** {@link #sync} with the count of ready pods known: a pod group's, over its pods. */
  public static void sync(
      KubernetesClient client,
      int readyPods,
      Workload workload,
      EventRecorder events,
      Instant now) {
    int admitted = admittedPods(workload);
    int ready = Math.min(admitted, readyPods);
    var previous =
        StatusConditions.find(workload.getStatus().conditions, StatusConditions.PODS_READY);
    PodsReadyTimeout.Condition next =
        PodsReadyTimeout.condition(previous.map(c -> c.reason).orElse(null), ready >= admitted);
    if (previous
        .filter(c -> c.isTrue() == next.ready() && next.reason().equals(c.reason))
        .isPresent()) {
      return; // the count in the message is that of the transition: no write per pod
    }
    String message =
        next.ready()
            ? "All " + admitted + " pods are ready or succeeded"
            : ready + " of " + admitted + " pods are ready or succeeded";
    Workload copy = Copies.deep(workload);
    StatusConditions.set(
        copy.getStatus(), StatusConditions.PODS_READY, next.ready(), next.reason(), message, now);
    Workload written = client.resource(copy).updateStatus();
    if (next.ready()) {
      events.normal(written, next.reason(), message);
    } else if (PodsReadyTimeout.WAIT_FOR_RECOVERY.equals(next.reason())) {
      events.warning(written, "PodsNotReady", "Lost readiness: " + message);
    } else {
      events.normal(written, "WaitingForPods", message);
    }
  }

  private static int admittedPods(Workload workload) {
    int pods = 0;
    for (var ps : workload.getStatus().admission.podSetAssignments) {
      pods += ps.count == null ? 0 : ps.count;
    }
    if (pods == 0) {
      for (var ps : workload.getSpec().podSets) {
        pods += ps.count == null ? 1 : ps.count;
      }
    }
    return pods;
  }
}
