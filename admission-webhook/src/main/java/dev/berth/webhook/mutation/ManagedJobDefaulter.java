package dev.berth.webhook.mutation;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.berth.api.v1beta1.Berth;
import dev.berth.webhook.integration.Framework;
import dev.berth.webhook.validation.JobView;
import dev.berth.webhook.validation.QueueScope;
import java.util.List;

/**
 * On create of a Job, a JobSet or another registry kind: take the queue from the namespace's
 * LocalQueue named {@code default} when the queue-name label is missing, suspend every managed one
 * so that nothing runs before Berth admits its Workload, and stamp when it was submitted.
 */
public final class ManagedJobDefaulter implements Defaulter {
  public static final String DEFAULT_QUEUE = QueueScope.DEFAULT_QUEUE;

  private final LocalQueueLookup localQueues;

  private final java.time.Clock clock;

  /** The path of the kind's suspend flag, e.g. [spec, suspend] (Framework#suspendPointer). */
  private final List<String> suspendPath;

  public ManagedJobDefaulter(LocalQueueLookup localQueues) {
    this(localQueues, java.time.Clock.systemUTC());
  }

  public ManagedJobDefaulter(LocalQueueLookup localQueues, java.time.Clock clock) {
    this(localQueues, clock, "/spec/suspend");
  }

  /** For a kind that keeps its suspend flag elsewhere, e.g. a Kubeflow job's runPolicy. */
  public ManagedJobDefaulter(LocalQueueLookup localQueues, Framework framework) {
    this(localQueues, java.time.Clock.systemUTC(), framework.suspendPointer());
  }

  private ManagedJobDefaulter(
      LocalQueueLookup localQueues, java.time.Clock clock, String suspendPointer) {
    this.localQueues = localQueues;
    this.clock = clock;
    this.suspendPath = List.of(suspendPointer.substring(1).split("/"));
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
      ObjectNode parent = job;
      for (String field : suspendPath.subList(0, suspendPath.size() - 1)) {
        parent = parent == null ? null : Json.object(parent, field);
      }
      if (parent != null) {
        parent.put(suspendPath.get(suspendPath.size() - 1), true);
      }
    }
  }
}
