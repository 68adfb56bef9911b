package dev.berth.e2e;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobCondition;
import io.fabric8.kubernetes.api.model.batch.v1.JobConditionBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The one thing the Job controller does that an eviction waits for, on an API server that runs no
 * kube-controller-manager: once Berth has asked (the {@code berth.dev/stop-requested} mark, its
 * {@code Suspended} condition taken away), a suspended Job gets {@code Suspended=True} back, as the
 * controller writes it (reason {@code JobSuspended}), with the version it read. Tests on a real
 * control plane ({@code ControlPlaneE2EIT}, the fault suite) have the real controller.
 */
public final class SuspensionAcknowledger implements AutoCloseable {
  static final String STOP_REQUESTED = "berth.dev/stop-requested";

  private final KubernetesClient client;
  private final SharedIndexInformer<Job> informer;

  private SuspensionAcknowledger(KubernetesClient client) {
    this.client = client;
    this.informer =
        client
            .batch()
            .v1()
            .jobs()
            .inAnyNamespace()
            .inform(
                new ResourceEventHandler<>() {
                  @Override
                  public void onAdd(Job job) {
                    acknowledge(job);
                  }

                  @Override
                  public void onUpdate(Job old, Job job) {
                    acknowledge(job);
                  }

                  @Override
                  public void onDelete(Job job, boolean unknownFinalStateUnknown) {}
                });
  }

  static SuspensionAcknowledger start(KubernetesClient client) {
    return new SuspensionAcknowledger(client);
  }

  private void acknowledge(Job job) {
    Map<String, String> annotations = job.getMetadata().getAnnotations();
    boolean asked = annotations != null && annotations.containsKey(STOP_REQUESTED);
    if (!asked || !Boolean.TRUE.equals(job.getSpec().getSuspend()) || suspendedTrue(job)) {
      return;
    }
    Job copy = Serialization.clone(job);
    JobStatus status = copy.getStatus() == null ? new JobStatus() : copy.getStatus();
    List<JobCondition> conditions =
        new ArrayList<>(status.getConditions() == null ? List.of() : status.getConditions());
    String now = Instant.now().toString();
    conditions.add(
        new JobConditionBuilder()
            .withType("Suspended")
            .withStatus("True")
            .withReason("JobSuspended")
            .withMessage("Job suspended")
            .withLastProbeTime(now)
            .withLastTransitionTime(now)
            .build());
    status.setConditions(conditions);
    copy.setStatus(status);
    try {
      client.resource(copy).updateStatus();
    } catch (KubernetesClientException e) {
      // 409: a newer version is coming, and with it another try; 404: gone.
      if (e.getCode() != 409 && e.getCode() != 404) {
        throw e;
      }
    }
  }

  private static boolean suspendedTrue(Job job) {
    return job.getStatus() != null
        && job.getStatus().getConditions() != null
        && job.getStatus().getConditions().stream()
            .anyMatch(c -> "Suspended".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  @Override
  public void close() {
    informer.close();
  }
}
