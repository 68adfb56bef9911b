package dev.berth.operator.reconciler;

import dev.berth.api.v1beta1.Berth;
import dev.berth.api.v1beta1.PodSetAssignment;
import dev.berth.api.v1beta1.Workload;
import dev.berth.api.v1beta1.WorkloadStatus;
import dev.berth.operator.admission.WorkloadConditions;
import dev.berth.operator.events.EventRecorder;
import dev.berth.operator.job.JobAdapter;
import dev.berth.operator.job.PriorityResolver;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.Mappers;
import java.time.Clock;
import java.util.List;
import java.util.Optional;

/**
 * The lifecycle of a managed batch/v1 Job (one with {@code berth.dev/queue-name}): a Workload per
 * Job; the Job suspended until its Workload holds quota, then started on the assigned flavors;
 * suspended and restored on eviction; its Workload finished when it completes or fails. Each step
 * is one write carrying the resourceVersion; the next event brings the next step.
 */
@ControllerConfiguration(
    triggerReconcilerOnAllEvents = true,
    generationAwareEventProcessing = false,
    informer = @Informer(labelSelector = Berth.QUEUE_NAME_LABEL))
public final class JobReconciler implements Reconciler<Job> {
  private final PriorityResolver priorities;
  private final FlavorCache flavors;
  private final EventRecorder events;
  private final Clock clock;

  public JobReconciler(
      PriorityResolver priorities, FlavorCache flavors, EventRecorder events, Clock clock) {
    this.priorities = priorities;
    this.flavors = flavors;
    this.events = events;
    this.clock = clock;
  }

  @Override
  public List<EventSource<?, Job>> prepareEventSources(EventSourceContext<Job> context) {
    var workloads =
        InformerEventSourceConfiguration.from(Workload.class, Job.class)
            .withSecondaryToPrimaryMapper(Mappers.fromOwnerReferences(Job.class, false))
            .withLabelSelector(Berth.OWNER_KIND_LABEL + "=Job")
            .build();
    return List.of(new InformerEventSource<>(workloads, context));
  }

  @Override
  public UpdateControl<Job> reconcile(Job job, Context<Job> context) {
    KubernetesClient client = context.getClient();
    String namespace = job.getMetadata().getNamespace();
    if (context.isPrimaryResourceDeleted()) {
      // No garbage collector needed to give the quota back at once.
      client.resources(Workload.class).inNamespace(namespace).withName(JobAdapter.workloadName(job)).delete();
      return UpdateControl.noUpdate();
    }
    Optional<Workload> found =
        context.getSecondaryResources(Workload.class).stream()
            .filter(w -> w.getMetadata().getName().equals(JobAdapter.workloadName(job)))
            .findFirst();
    if (found.isEmpty()) {
      return withoutWorkload(client, job);
    }
    Workload workload = found.get();
    Optional<JobCondition> finished = JobAdapter.finishedCondition(job);
    if (finished.isPresent()) {
      finish(client, job, workload, finished.get());
      return UpdateControl.noUpdate();
    }
    if (WorkloadConditions.isFinished(workload)) {
      return UpdateControl.noUpdate();
    }
    boolean evicted = WorkloadConditions.isTrue(workload, WorkloadConditions.EVICTED);
    if (evicted) {
      evict(client, job, workload);
    } else if (WorkloadConditions.hasQuotaReserved(workload)) {
      start(client, job, workload);
    } else if (!JobAdapter.isSuspended(job)) {
      suspend(client, job, "the Job is not admitted: its Workload waits for quota");
    }
    return UpdateControl.noUpdate();
  }

  private UpdateControl<Job> withoutWorkload(KubernetesClient client, Job job) {
    if (JobAdapter.finishedCondition(job).isPresent()) {
      return UpdateControl.noUpdate();
    }
    if (!JobAdapter.isSuspended(job)) {
      // Running without admission (created around the webhook, or its Workload was deleted).
      suspend(client, job, "a managed Job runs only once its Workload is admitted");
      return UpdateControl.noUpdate();
    }
    PriorityResolver.Resolved priority =
        priorities.resolve(job.getMetadata().getLabels(), job.getSpec().getTemplate());
    Workload workload = JobAdapter.newWorkload(job, priority.ref(), priority.value());
    try {
      client.resource(workload).create();
      events.normal(job, "CreatedWorkload", "Created Workload " + workload.getMetadata().getName());
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409) {
        throw e;
      }
    }
    return UpdateControl.noUpdate();
  }

  private void start(KubernetesClient client, Job job, Workload workload) {
    if (!JobAdapter.isSuspended(job)) {
      return;
    }
    PodSetAssignment assignment =
        workload.getStatus().admission.podSetAssignments.stream()
            .filter(a -> JobAdapter.PODSET.equals(a.name))
            .findFirst()
            .orElseThrow();
    Job admitted = JobAdapter.admitted(job, assignment, flavors);
    client.resource(admitted).update();
    events.normal(
        job, "Started", "Admitted by ClusterQueue " + workload.getStatus().admission.clusterQueue);
  }

  private void evict(KubernetesClient client, Job job, Workload workload) {
    // Three writes, because the API server allows a Job's template to change only while the Job
    // is suspended and has no start time: suspend, clear the start time, restore the template.
    if (!JobAdapter.isSuspended(job)) {
      suspend(client, job, "its Workload was evicted: " + evictionMessage(workload));
      return;
    }
    if (job.getStatus() != null && job.getStatus().getStartTime() != null) {
      Job copy = Serialization.clone(job);
      copy.getStatus().setStartTime(null);
      client.resource(copy).updateStatus();
      return;
    }
    Job restored = JobAdapter.suspendedAndRestored(job, workload.getSpec().podSets.get(0).template);
    boolean sameAnnotations =
        restored.getMetadata().getAnnotations().equals(
            job.getMetadata().getAnnotations() == null ? java.util.Map.of() : job.getMetadata().getAnnotations());
    if (!restored.getSpec().equals(job.getSpec()) || !sameAnnotations) {
      client.resource(restored).update();
      return;
    }
    if (JobAdapter.activePods(job) > 0 || !WorkloadConditions.hasQuotaReserved(workload)) {
      return;
    }
    // No pod runs any more: give the quota back and queue again, with a new queue timestamp.
    Workload copy = Serialization.clone(workload);
    WorkloadStatus status = copy.getStatus();
    var evicted = WorkloadConditions.find(status.conditions, WorkloadConditions.EVICTED).orElseThrow();
    status.admission = null;
    var now = clock.instant();
    WorkloadConditions.set(status, WorkloadConditions.QUOTA_RESERVED, false, "Pending", "Evicted: " + evicted.message, now);
    WorkloadConditions.set(status, WorkloadConditions.ADMITTED, false, "NoReservation", "The workload has no reservation", now);
    boolean deactivated = Boolean.FALSE.equals(copy.getSpec().active);
    if (!deactivated) {
      WorkloadConditions.remove(status, WorkloadConditions.REQUEUED);
      WorkloadConditions.set(status, WorkloadConditions.REQUEUED, true, evicted.reason, "Requeued after eviction", now);
    }
    WorkloadConditions.remove(status, WorkloadConditions.EVICTED);
    client.resource(copy).updateStatus();
  }

  private static String evictionMessage(Workload workload) {
    return WorkloadConditions.find(workload.getStatus().conditions, WorkloadConditions.EVICTED)
        .map(c -> c.message)
        .orElse("evicted");
  }

  private void finish(KubernetesClient client, Job job, Workload workload, JobCondition condition) {
    if (WorkloadConditions.isFinished(workload)) {
      return;
    }
    Workload copy = Serialization.clone(workload);
    WorkloadStatus status = copy.getStatus() == null ? new WorkloadStatus() : copy.getStatus();
    copy.setStatus(status);
    boolean succeeded = "Complete".equals(condition.getType());
    String message =
        condition.getMessage() != null
            ? condition.getMessage()
            : succeeded ? "Job finished successfully" : "Job failed";
    WorkloadConditions.set(
        status, WorkloadConditions.FINISHED, true, succeeded ? "Succeeded" : "Failed", message, clock.instant());
    client.resource(copy).updateStatus();
    events.normal(job, "Finished", "Workload finished: " + message);
  }

  private void suspend(KubernetesClient client, Job job, String why) {
    Job copy = Serialization.clone(job);
    copy.getSpec().setSuspend(true);
    client.resource(copy).update();
    events.warning(job, "Suspended", why);
  }
}
