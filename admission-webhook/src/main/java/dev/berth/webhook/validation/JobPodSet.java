package dev.berth.webhook.validation;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Where a batch/v1 Job's pods are charged: the owner of their Workload (the Job, or the JobSet
 * whose child it is) and their pod set in it ({@code main}, or the JobSet's replicatedJob).
 *
 * @param ownerUid the UID the Workload's {@code berth.dev/owner-uid} label names
 * @param owner "Job name" or "JobSet name", for messages
 */
public record JobPodSet(String ownerUid, String podSet, String owner) {
  /** The pod set of a Job's Workload (the operator's JobAdapter names it so). */
  private static final String JOB_POD_SET = "main";

  /**
   * A JobSet's child Job's label naming its replicatedJob: its pod set in the JobSet's Workload.
   */
  private static final String REPLICATED_JOB_LABEL = "jobset.sigs.k8s.io/replicatedjob-name";

  /** The Job as stored. */
  public static JobPodSet of(JsonNode job) {
    JsonNode jobSet = JobSetChildren.owner(job);
    if (jobSet == null) {
      return new JobPodSet(
          job.at("/metadata/uid").asText(),
          JOB_POD_SET,
          "Job " + job.at("/metadata/name").asText());
    }
    return new JobPodSet(
        jobSet.path("uid").asText(),
        job.at("/metadata/labels").path(REPLICATED_JOB_LABEL).asText(""),
        "JobSet " + jobSet.path("name").asText());
  }
}
