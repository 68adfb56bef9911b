package dev.berth.webhook.validation;

import com.fasterxml.jackson.databind.JsonNode;
import dev.berth.api.v1beta1.Berth;
import java.util.List;
import java.util.Optional;

/**
 * A CronJob's Jobs carry its job template's labels, so they are queued where the template names a
 * LocalQueue. In a namespace Berth manages, a template that names none (and that the default-queue
 * webhook would not give the namespace's {@code default} LocalQueue) makes every Job the CronJob
 * creates be refused, at every schedule, where nobody sees it; refusing the CronJob itself says so
 * once, at {@code kubectl apply}.
 *
 * <p>On update only a change that produces such a template is refused (one that changes the job
 * template, or takes the label away): a CronJob stored before its namespace was managed may still
 * be suspended, rescheduled or have its finalizers removed.
 */
public final class CronJobQueueRule implements TemplateQueueRule {
  private static final FieldPath TEMPLATE_LABEL =
      FieldPath.root("spec")
          .child("jobTemplate")
          .child("metadata")
          .child("labels")
          .key(Berth.QUEUE_NAME_LABEL);

  private final QueueScope scope;

  public CronJobQueueRule(QueueScope scope) {
    this.scope = scope;
  }

  @Override
  public List<FieldError> onCreate(String namespace, JsonNode cronJob) {
    return check(namespace, cronJob);
  }

  @Override
  public List<FieldError> onUpdate(String namespace, JsonNode old, JsonNode cronJob) {
    if (old.at("/spec/jobTemplate").equals(cronJob.at("/spec/jobTemplate"))) {
      return List.of();
    }
    return check(namespace, cronJob);
  }

  private List<FieldError> check(String namespace, JsonNode cronJob) {
    if (cronJob.at("/spec/jobTemplate/metadata/labels").has(Berth.QUEUE_NAME_LABEL)) {
      return List.of();
    }
    Optional<String> managed = scope.managedBecause(namespace);
    if (managed.isEmpty() || scope.exists(namespace, QueueScope.DEFAULT_QUEUE)) {
      // Unmanaged: its Jobs are not Berth's. A default LocalQueue: they are given it.
      return List.of();
    }
    List<String> queues = scope.localQueues(namespace);
    return List.of(
        FieldError.required(
            TEMPLATE_LABEL,
            "namespace "
                + namespace
                + " is managed by Berth ("
                + managed.get()
                + "), so every Job this CronJob creates would be refused; name one of the"
                + " namespace's LocalQueues ("
                + (queues.isEmpty() ? "it has none yet" : String.join(", ", queues))
                + ") in the job template's labels, which its Jobs inherit"));
  }
}
