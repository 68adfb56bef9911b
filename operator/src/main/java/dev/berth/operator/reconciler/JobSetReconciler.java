package dev.berth.operator.reconciler;

import dev.berth.api.v1beta1.Berth;
import dev.berth.operator.job.WorkloadLifecycle;
import dev.berth.operator.jobset.JobSet;
import dev.berth.operator.jobset.JobSetAdapter;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
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
import java.util.List;

/**
 * Managed JobSets, with their Workloads. Registered only when the JobSet CRD is installed (see
 * {@code Integrations}).
 */
@ControllerConfiguration(
    triggerReconcilerOnAllEvents = true,
    generationAwareEventProcessing = false,
    informer = @Informer(labelSelector = Berth.QUEUE_NAME_LABEL))
public final class JobSetReconciler implements Reconciler<JobSet> {
  private final WorkloadLifecycle<JobSet> lifecycle;

  public JobSetReconciler(WorkloadLifecycle<JobSet> lifecycle) {
    this.lifecycle = lifecycle;
  }

  @Override
  public List<EventSource<?, JobSet>> prepareEventSources(EventSourceContext<JobSet> context) {
    // Its child Jobs too: the last pod of an evicted JobSet stopping changes a child Job's
    // terminating count and nothing of the JobSet, yet it is when the quota may go back.
    var childJobs =
        InformerEventSourceConfiguration.from(Job.class, JobSet.class)
            .withName("jobset-child-jobs")
            .withSecondaryToPrimaryMapper(Mappers.fromOwnerReferences(JobSet.class, false))
            .withLabelSelector(JobSetAdapter.JOBSET_NAME_LABEL)
            .build();
    return List.of(
        OwnedWorkloads.eventSource(context, JobSet.class, "JobSet"),
        new InformerEventSource<>(childJobs, context));
  }

  @Override
  public UpdateControl<JobSet> reconcile(JobSet jobSet, Context<JobSet> context) {
    if (context.isPrimaryResourceDeleted()) {
      lifecycle.deleted(context.getClient(), jobSet);
    } else {
      lifecycle.reconcile(
          context.getClient(),
          jobSet,
          OwnedWorkloads.find(context, lifecycle.workloadName(jobSet)));
    }
    return UpdateControl.noUpdate();
  }
}
