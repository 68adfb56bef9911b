package dev.berth.webhook.validation;

import dev.berth.api.v1beta1.Berth;
import java.util.Objects;

/**
 * Rules every managed Job and JobSet shares: the queue labels, and the queue fixed while it runs.
 */
final class ManagedJobRules {
  private static final FieldPath LABELS = FieldPath.root("metadata").child("labels");

  private ManagedJobRules() {}

  static void validateLabels(JobView job, Errors errors) {
    if (!job.managed()) {
      return;
    }
    String queue = job.queueName();
    FieldPath qp = LABELS.key(Berth.QUEUE_NAME_LABEL);
    if (queue.isEmpty()) {
      errors.add(FieldError.required(qp, "the LocalQueue name must not be empty"));
    } else {
      errors.dnsSubdomain(qp, queue);
    }
    errors.dnsSubdomain(
        LABELS.key(Berth.PRIORITY_CLASS_LABEL), job.labels().get(Berth.PRIORITY_CLASS_LABEL));
  }

  /**
   * While a Job runs its quota is held in the ClusterQueue behind its LocalQueue; moving it to
   * another queue (or out of Berth) would leave that quota accounted to the wrong queue.
   */
  static void validateQueueUnchangedWhileRunning(
      JobView old, JobView job, String kind, Errors errors) {
    if (old.childOfJobSet() || old.suspended()) {
      return;
    }
    if (!Objects.equals(old.queueName(), job.queueName())) {
      errors.add(
          FieldError.invalid(
              LABELS.key(Berth.QUEUE_NAME_LABEL),
              job.queueName(),
              "the queue-name label cannot be "
                  + (job.queueName() == null ? "removed" : "changed")
                  + " while the "
                  + kind
                  + " is running (not suspended)"));
    }
  }
}
