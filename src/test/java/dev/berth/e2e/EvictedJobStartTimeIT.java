package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.api.v1beta1.Admission;
import dev.berth.api.v1beta1.Berth;
import dev.berth.api.v1beta1.Workload;
import dev.berth.api.v1beta1.WorkloadStatus;
import dev.berth.operator.admission.StatusConditions;
import dev.berth.operator.events.EventRecorder;
import dev.berth.operator.integration.Integration;
import dev.berth.operator.integration.PriorityResolver;
import dev.berth.operator.integration.WorkloadLifecycle;
import dev.berth.operator.integration.job.JobAdapter;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobStatus;
import io.fabric8.kubernetes.api.model.batch.v1.UncountedTerminatedPodsBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The fault suite's third stall, on the real API server: a Job evicted while its pod is still
 * there, at the moment the Job controller's status shows no pod (in the sync that deletes a
 * suspended Job's pods it writes {@code active} less the deleted ones and {@code terminating} as
 * counted before), kept its start time only as long as the status said so. Berth cleared it, the
 * pod then succeeded, and kube-controller-manager refused to finish the Job for ever ({@code
 * status.startTime: Required value: startTime is required for finished job}); the Job stayed
 * suspended with its pod succeeded.
 *
 * <p>No kube-controller-manager runs here: the test writes the Job controller's statuses itself, in
 * the order the real one wrote them in that run, so that the window is hit every time. Nothing of
 * Berth is stood in for; the Job is not labelled for a queue, so the shared operator of the test
 * JVM leaves it alone.
 */
class EvictedJobStartTimeIT {
  private static final String NS = "evicted-start-time";

  private final KubernetesClient client = TestApiServer.client();
  private final WorkloadLifecycle<Job> lifecycle =
      new WorkloadLifecycle<>(
          new JobAdapter(),
          new PriorityResolver(client),
          new Integration.FlavorLookup() {
            @Override
            public Map<String, String> nodeLabels(String flavor) {
              return Map.of();
            }

            @Override
            public List<Toleration> tolerations(String flavor) {
              return List.of();
            }
          },
          new EventRecorder(client),
          Clock.systemUTC());

  @Test
  void theStartTimeStaysWhileAPodOfTheJobIsNotCountedEvenIfTheStatusShowsNone() {
    Namespaces.ensure(client, NS);
    Job job = client.resource(job("train")).create();
    String startTime = Instant.now().toString().replaceAll("\\.\\d+Z$", "Z");
    // The Job controller started it: a start time, one active pod carrying its finalizer.
    job.setStatus(new JobStatus());
    job.getStatus().setStartTime(startTime);
    job.getStatus().setActive(1);
    job = client.resource(job).updateStatus();
    Pod pod = client.resource(pod(job)).create();
    // Berth evicts: suspended.
    job.getSpec().setSuspend(true);
    job = client.resource(job).update();
    // The Job controller's suspend sync: it deletes the pod (the finalizer keeps it) and writes
    // active 0 and terminating 0; the pod has not stopped yet.
    client.resource(pod).delete();
    job.getStatus().setActive(0);
    job.getStatus().setTerminating(0);
    job = client.resource(job).updateStatus();

    lifecycle.reconcile(client, job, Optional.of(evicted(job)));

    job = client.resource(job).get();
    assertThat(job.getStatus().getStartTime())
        .as("start time of a Job whose pod is still to be counted")
        .isEqualTo(startTime);

    // The pod succeeds; the controller lists it as uncounted, takes its finalizer off (the pod
    // goes), and counts it.
    pod = client.resource(pod).get();
    pod.setStatus(new PodStatusBuilder().withPhase("Succeeded").build());
    pod = client.resource(pod).updateStatus();
    job.getStatus()
        .setUncountedTerminatedPods(
            new UncountedTerminatedPodsBuilder().withSucceeded(pod.getMetadata().getUid()).build());
    job = client.resource(job).updateStatus();
    lifecycle.reconcile(client, job, Optional.of(evicted(job)));
    assertThat(client.resource(job).get().getStatus().getStartTime())
        .as("start time while the pod is in uncountedTerminatedPods")
        .isEqualTo(startTime);

    pod.getMetadata().setFinalizers(List.of());
    client.resource(pod).update();
    job = client.resource(job).get();
    job.getStatus().setUncountedTerminatedPods(null);
    job.getStatus().setSucceeded(1);
    job = client.resource(job).updateStatus();

    lifecycle.reconcile(client, job, Optional.of(evicted(job)));

    assertThat(client.resource(job).get().getStatus().getStartTime())
        .as("start time once every pod is counted")
        .isNull();
  }

  /** Started (not suspended), and not labelled for a queue: no operator but this test's acts. */
  private static Job job(String name) {
    Job job = ScenarioObjects.job(NS, name, "unused", 1, "1");
    job.getMetadata().getLabels().remove(Berth.QUEUE_NAME_LABEL);
    job.getSpec().setSuspend(false);
    return job;
  }

  /** As the Job controller makes it: its UID label and tracking finalizer, owned by the Job. */
  private static Pod pod(Job job) {
    return new PodBuilder()
        .withNewMetadata()
        .withNamespace(NS)
        .withName(job.getMetadata().getName() + "-pod")
        .addToLabels("batch.kubernetes.io/controller-uid", job.getMetadata().getUid())
        .addToLabels("batch.kubernetes.io/job-name", job.getMetadata().getName())
        .addToFinalizers("batch.kubernetes.io/job-tracking")
        .addNewOwnerReference()
        .withApiVersion("batch/v1")
        .withKind("Job")
        .withName(job.getMetadata().getName())
        .withUid(job.getMetadata().getUid())
        .withController(true)
        .endOwnerReference()
        .endMetadata()
        .withSpec(job.getSpec().getTemplate().getSpec())
        .build();
  }

  /** Its Workload as the eviction leaves it: quota still reserved, Evicted (not written here). */
  private Workload evicted(Job job) {
    Workload workload = new JobAdapter().newWorkload(job, new PriorityResolver(client));
    WorkloadStatus status = new WorkloadStatus();
    status.admission = new Admission();
    status.admission.clusterQueue = "cq";
    Instant now = Instant.now();
    StatusConditions.set(
        status, StatusConditions.QUOTA_RESERVED, true, "QuotaReserved", "reserved", now);
    StatusConditions.set(status, StatusConditions.ADMITTED, true, "Admitted", "admitted", now);
    StatusConditions.set(
        status, StatusConditions.EVICTED, true, "Preempted", "preempted by a test", now);
    workload.setStatus(status);
    return workload;
  }
}
