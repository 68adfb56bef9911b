package dev.berth.webhook.mutation;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.berth.api.v1beta1.Berth;
import dev.berth.webhook.validation.JobView;
import dev.berth.webhook.validation.QueueScope;

/**
 * On create of a Job or JobSet: take the queue from the namespace's LocalQueue named {@code
 * default} when the queue-name label is missing, suspend every managed one so that nothing runs
 * before Berth admits its Workload, and stamp when it was submitted.
 */
public final class ManagedJobDefaulter implements Defaulter {
  public static final String DEFAULT_QUEUE = QueueScope.DEFAULT_QUEUE;

  private final LocalQueueLookup localQueues;

  private final java.time.Clock clock;

  public ManagedJobDefaulter(LocalQueueLookup localQueues) {
    this(localQueues, java.time.Clock.systemUTC());
  }

  public ManagedJobDefaulter(LocalQueueLookup localQueues, java.time.Clock clock) {
    this.localQueues = localQueues;
    this.clock = clock;
  }

  @Override
  public void apply(ObjectNode job, String namespace) {
    JobView view = JobView.of(job);
    if (view.childOfJobSet()) {
      return; // the owning JobSet is what Berth manages and suspends
    }
    ObjectNode metadata = Json.object(job, "metadata");
    if (metadata == null) {
      return;
    }
    if (!view.labels().containsKey(Berth.QUEUE_NAME_LABEL)
        && namespace != null
        && localQueues.exists(namespace, DEFAULT_QUEUE)) {
      ObjectNode labels = Json.object(metadata, "labels");
      if (labels != null) {
        labels.put(Berth.QUEUE_NAME_LABEL, DEFAULT_QUEUE);
      }
    }
    if (JobView.of(job).managed()) {
      // Sub-second submission order, for jobs created in the same second; always ours, never
      // the submitter's (a hand-set value would jump the queue).
      ObjectNode annotations = Json.object(metadata, "annotations");
      if (annotations != null) {
        annotations.put(Berth.SUBMITTED_AT_ANNOTATION, clock.instant().toString());
      }
      ObjectNode spec = Json.object(job, "spec");
      if (spec != null) {
        spec.put("suspend", true);
      }
    }
  }
}
