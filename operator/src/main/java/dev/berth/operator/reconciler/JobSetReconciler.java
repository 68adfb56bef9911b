package dev.berth.operator.reconciler;

import dev.berth.api.v1beta1.Berth;
import dev.berth.operator.job.WorkloadLifecycle;
import dev.berth.operator.jobset.JobSet;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
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
    return List.of(OwnedWorkloads.eventSource(context, JobSet.class, "JobSet"));
  }

  @Override
  public UpdateControl<JobSet> reconcile(JobSet jobSet, Context<JobSet> context) {
    if (context.isPrimaryResourceDeleted()) {
      lifecycle.deleted(context.getClient(), jobSet);
    } else {
      lifecycle.reconcile(
          context.getClient(), jobSet, OwnedWorkloads.find(context, lifecycle.workloadName(jobSet)));
    }
    return UpdateControl.noUpdate();
  }
}
