package dev.berth.e2e;

import dev.berth.api.v1beta1.AdmissionCheck;
import dev.berth.api.v1beta1.AdmissionCheckStatus;
import dev.berth.api.v1beta1.Condition;
import dev.berth.api.v1beta1.Workload;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.function.UnaryOperator;

/**
 * A stand-in for an external admission-check controller (a budget gate, a capacity provisioner): it
 * writes what such a controller writes, through the API server with its own client, and nothing
 * else — the AdmissionCheck's Active condition and the state of its own check in a Workload's
 * status.admissionChecks, each a read-modify-write carrying the resourceVersion.
 */
final class CheckControllerStandIn {
  private final KubernetesClient client;
  private final String check;

  CheckControllerStandIn(KubernetesClient client, String check) {
    this.client = client;
    this.check = check;
  }

  /** Marks the AdmissionCheck Active, as a running controller does. */
  void markActive() {
    update(
        () -> client.resources(AdmissionCheck.class).withName(check).get(),
        ac -> {
          ac.setStatus(new AdmissionCheckStatus());
          Condition active = new Condition("Active", "True", "Active", "the stand-in runs");
          active.lastTransitionTime = Instant.now().toString();
          ac.getStatus().conditions = new ArrayList<>(java.util.List.of(active));
          return ac;
        });
  }

  /** Sets this check's state for the workload; the entry must be listed already. */
  Workload setState(Workload workload, String state, String message) {
    String ns = workload.getMetadata().getNamespace();
    String name = workload.getMetadata().getName();
    return update(
        () -> client.resources(Workload.class).inNamespace(ns).withName(name).get(),
        wl -> {
          var entry =
              wl.getStatus().admissionChecks.stream()
                  .filter(c -> c.name.equals(check))
                  .findFirst()
                  .orElseThrow(() -> new AssertionError(check + " is not listed on " + name));
          entry.state = state;
          entry.message = message;
          entry.lastTransitionTime = Instant.now().toString();
          return wl;
        });
  }

  /** Read, change, write with the read resourceVersion; a conflict means read again. */
  private <T extends io.fabric8.kubernetes.api.model.HasMetadata> T update(
      java.util.function.Supplier<T> read, UnaryOperator<T> change) {
    for (int attempt = 1; ; attempt++) {
      try {
        return client.resource(change.apply(read.get())).updateStatus();
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409 || attempt == 10) {
          throw e;
        }
      }
    }
  }
}
