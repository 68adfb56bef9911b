package dev.berth.webhook.validation;

import com.fasterxml.jackson.databind.JsonNode;
import dev.berth.api.v1beta1.Berth;
import dev.berth.webhook.integration.Framework;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Keeps every workload Berth manages (each kind of the registry, {@link Framework}) inside its
 * queue, whoever asks. Managed means: it carries the queue-name label, or its namespace is one
 * Berth manages (a ClusterQueue selects it, or it has a LocalQueue named {@code default}; see
 * {@link QueueScope}). Then:
 *
 * <ul>
 *   <li>in a managed namespace a new Job names a LocalQueue (the default-queue webhook fills it in
 *       when there is one);
 *   <li>while suspended, its queue label may move to another existing LocalQueue, never go away;
 *   <li>only the operator unsuspends it, whatever the labels before and after;
 *   <li>while it runs, its pod sets stay those its Workload was admitted with (only the operator,
 *       which lowers parallelism for partial admission, may change them);
 *   <li>only the operator sets, changes or removes its stop-request mark ({@code
 *       berth.dev/stop-requested}).
 * </ul>
 *
 * <p>These are decisions about a request, never ratcheted away: an old object cannot already have
 * them.
 */
public final class ManagedJobPolicy {
  private static final FieldPath QUEUE_LABEL =
      FieldPath.root("metadata").child("labels").key(Berth.QUEUE_NAME_LABEL);

  private final RequestGuard guard;
  private final QueueScope scope;

  public ManagedJobPolicy(RequestGuard guard, QueueScope scope) {
    this.guard = guard;
    this.scope = scope;
  }

  /**
   * {@code kind} is a registered kind ({@link Framework#kind()}); {@code job} the object after
   * mutation.
   */
  public List<FieldError> onCreate(String kind, String namespace, JsonNode job, String username) {
    JobView view = JobView.of(job, Framework.ofKind(kind));
    Optional<String> managedNamespace = scope.managedBecause(namespace);
    if (view.childOfJobSet()) {
      // Its JobSet (or RayJob, TrainJob) is what Berth queues and starts; the child must be one
      // it runs.
      if (TrainJobChildren.owner(job) != null) {
        return checkTrainJobChild(namespace, null, job, username, managedNamespace);
      }
      return RayChildren.owner(job) != null
          ? checkRayJobChild(kind, namespace, null, job, username, managedNamespace)
          : checkJobSetChild(namespace, null, job, username, managedNamespace);
    }
    Errors errors = new Errors();
    if (!view.managed() && managedNamespace.isPresent()) {
      List<String> queues = scope.localQueues(namespace);
      errors.add(
          FieldError.required(
              QUEUE_LABEL,
              "namespace "
                  + namespace
                  + " is managed by"
                  + " Berth ("
                  + managedNamespace.get()
                  + "): a "
                  + kind
                  + " there must name one of its"
                  + " LocalQueues in the label "
                  + Berth.QUEUE_NAME_LABEL
                  + " ("
                  + (queues.isEmpty()
                      ? "it has none yet: ask the cluster's admin for one"
                      : String.join(", ", queues))
                  + "), or the namespace needs a LocalQueue named "
                  + QueueScope.DEFAULT_QUEUE));
    }
    errors.addAll(guard.checkStart(null, view, kind, username, managedNamespace));
    errors.addAll(guard.checkStopRequestMark(null, view, username));
    return errors.toList();
  }

  public List<FieldError> onUpdate(
      String kind, String namespace, JsonNode old, JsonNode job, String username) {
    JobView before = JobView.of(old, Framework.ofKind(kind));
    JobView after = JobView.of(job, Framework.ofKind(kind));
    Optional<String> managedNamespace = scope.managedBecause(namespace);
    if (before.childOfJobSet() && after.childOfJobSet()) {
      if (TrainJobChildren.owner(job) != null) {
        return checkTrainJobChild(namespace, old, job, username, managedNamespace);
      }
      return RayChildren.owner(job) != null
          ? checkRayJobChild(kind, namespace, old, job, username, managedNamespace)
          : checkJobSetChild(namespace, before, job, username, managedNamespace);
    }
    if (!before.managed() && !after.managed() && managedNamespace.isEmpty()) {
      return List.of();
    }
    Errors errors = new Errors();
    if (before.suspended()) {
      checkQueueMove(kind, namespace, before, after, errors);
    }
    errors.addAll(guard.checkStart(before, after, kind, username, managedNamespace));
    errors.addAll(guard.checkStopRequestMark(before, after, username));
    if (before.managed() && !before.suspended() && !guard.isOperator(username)) {
      String why =
          "the "
              + kind
              + " runs under the Workload admitted for its old size; delete it"
              + " and create it again to change its pods";
      errors.addAll(PodSetChanges.of(Framework.ofKind(kind), old, job, why));
    }
    return errors.toList();
  }

  /**
   * A Job claiming a JobSet as its controller, when it starts (created running or unsuspended) in a
   * request not the operator's: the JobSet must run it ({@link JobSetChildren}); and its
   * stop-request mark is the operator's, as a Job's (an evicted JobSet's quota waits for each child
   * Job's acknowledgment). Where Berth manages neither the namespace nor that JobSet, it is none of
   * Berth's business.
   */
  private List<FieldError> checkJobSetChild(
      String namespace,
      JobView before,
      JsonNode job,
      String username,
      Optional<String> managedNamespace) {
    JobView after = JobView.of(job);
    boolean starting = !after.suspended() && (before == null || before.suspended());
    boolean marking =
        !Objects.equals(
            before == null ? null : before.annotations().get(Berth.STOP_REQUESTED_ANNOTATION),
            after.annotations().get(Berth.STOP_REQUESTED_ANNOTATION));
    if (!(starting || marking) || guard.isOperator(username)) {
      return List.of();
    }
    JsonNode owner = JobSetChildren.owner(job);
    JsonNode jobSet =
        scope
            .jobSet(namespace, owner.path("name").asText())
            .filter(js -> js.at("/metadata/uid").asText().equals(owner.path("uid").asText()))
            .orElse(null);
    if (managedNamespace.isEmpty() && (jobSet == null || !JobView.of(jobSet).managed())) {
      return List.of();
    }
    Errors errors = new Errors();
    if (starting) {
      JobSetChildren.checkStart(job, owner, jobSet, errors);
    }
    errors.addAll(guard.checkStopRequestMark(before, after, username));
    return errors.toList();
  }

  /**
   * What KubeRay makes for a RayJob (its RayCluster, its submitter Job), when it runs after a
   * request not the operator's (created or changed while not suspended): it must be what the
   * RayJob's admission covers ({@link RayChildren}). Where Berth manages neither the namespace nor
   * that RayJob, it is none of Berth's business.
   */
  private List<FieldError> checkRayJobChild(
      String kind,
      String namespace,
      JsonNode old,
      JsonNode child,
      String username,
      Optional<String> managedNamespace) {
    boolean running = !child.path("spec").path("suspend").asBoolean(false);
    boolean changed = old == null || !old.path("spec").equals(child.path("spec"));
    if (!running || !changed || guard.isOperator(username)) {
      return List.of();
    }
    JsonNode owner = RayChildren.owner(child);
    JsonNode rayJob =
        scope
            .rayObject("RayJob", namespace, owner.path("name").asText())
            .filter(j -> j.at("/metadata/uid").asText().equals(owner.path("uid").asText()))
            .orElse(null);
    if (managedNamespace.isEmpty() && (rayJob == null || !JobView.of(rayJob).managed())) {
      return List.of();
    }
    Errors errors = new Errors();
    RayChildren.check(kind, child, owner, rayJob, errors);
    return errors.toList();
  }

  /**
   * The JobSet Kubeflow Trainer makes for a TrainJob, when it runs after a request not the
   * operator's (created or changed while not suspended): it must be what the TrainJob's admission
   * covers ({@link TrainJobChildren}). Where Berth manages neither the namespace nor that TrainJob,
   * it is none of Berth's business.
   */
  private List<FieldError> checkTrainJobChild(
      String namespace,
      JsonNode old,
      JsonNode jobSet,
      String username,
      Optional<String> managedNamespace) {
    boolean running = !jobSet.path("spec").path("suspend").asBoolean(false);
    boolean changed = old == null || !old.path("spec").equals(jobSet.path("spec"));
    if (!running || !changed || guard.isOperator(username)) {
      return List.of();
    }
    JsonNode owner = TrainJobChildren.owner(jobSet);
    JsonNode trainJob =
        scope
            .owner(Framework.TRAINJOB, namespace, owner.path("name").asText())
            .filter(j -> j.at("/metadata/uid").asText().equals(owner.path("uid").asText()))
            .orElse(null);
    if (managedNamespace.isEmpty() && (trainJob == null || !JobView.of(trainJob).managed())) {
      return List.of();
    }
    Errors errors = new Errors();
    TrainJobChildren.check(
        jobSet,
        owner,
        trainJob,
        trainJob == null
            ? List.of()
            : scope.workloadsOwnedBy(namespace, trainJob.at("/metadata/uid").asText()),
        errors);
    return errors.toList();
  }

  /**
   * A suspended managed Job may change queues (that is how it is requeued elsewhere), but only to a
   * LocalQueue that exists: without the label nothing would stop it being started later.
   */
  private void checkQueueMove(
      String kind, String namespace, JobView before, JobView after, Errors errors) {
    String to = after.queueName();
    if (Objects.equals(before.queueName(), to)) {
      return;
    }
    if (to == null) {
      errors.add(
          FieldError.forbidden(
              QUEUE_LABEL,
              "cannot be removed from a "
                  + kind
                  + " managed by Berth; move it to another LocalQueue of namespace "
                  + namespace
                  + ", or delete the "
                  + kind));
    } else if (!scope.exists(namespace, to)) {
      errors.add(
          FieldError.invalid(
              QUEUE_LABEL,
              to,
              "a suspended "
                  + kind
                  + " may move only to"
                  + " an existing LocalQueue; namespace "
                  + namespace
                  + " has no LocalQueue \""
                  + to
                  + "\""));
    }
  }
}
