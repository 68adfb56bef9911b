package dev.berth.e2e;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobCondition;
import io.fabric8.kubernetes.api.model.batch.v1.JobConditionBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Instant;
import java.util.List;

/** Plays the kubelet and Job controller, which the test cluster lacks, by writing Job status. */
final class Kubelet {
  private Kubelet() {}

  /** The Job's pods all succeeded. */
  static void complete(KubernetesClient client, Job job) {
    String now = Instant.now().toString();
    client
        .batch()
        .v1()
        .jobs()
        .inNamespace(job.getMetadata().getNamespace())
        .withName(job.getMetadata().getName())
        .editStatus(
            j -> {
              JobStatus status = j.getStatus() == null ? new JobStatus() : j.getStatus();
              int pods = j.getSpec().getParallelism() == null ? 1 : j.getSpec().getParallelism();
              status.setStartTime(status.getStartTime() == null ? now : status.getStartTime());
              status.setCompletionTime(now);
              status.setSucceeded(pods);
              status.setActive(0);
              status.setReady(0);
              status.setTerminating(0);
              status.setUncountedTerminatedPods(null);
              status.setConditions(
                  List.of(condition("SuccessCriteriaMet", now), condition("Complete", now)));
              j.setStatus(status);
              return j;
            });
  }

  private static JobCondition condition(String type, String now) {
    return new JobConditionBuilder()
        .withType(type)
        .withStatus("True")
        .withLastProbeTime(now)
        .withLastTransitionTime(now)
        .build();
  }
}
