package dev.berth.operator.reconciler;

import dev.berth.api.v1beta1.Berth;
import dev.berth.operator.informers.Informers;
import dev.berth.operator.job.WorkloadLifecycle;
import dev.berth.operator.kube.LeanItemStore;
import dev.berth.operator.kube.SharedVersions;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import java.util.List;

/** Managed batch/v1 Jobs (those with {@code berth.dev/queue-name}), with their Workloads. */
@ControllerConfiguration(
    triggerReconcilerOnAllEvents = true,
    generationAwareEventProcessing = false,
    informer =
        @Informer(
            informerListLimit = Informers.LIST_LIMIT,
            labelSelector = Berth.QUEUE_NAME_LABEL,
            itemStore = LeanItemStore.class))
public final class JobReconciler implements Reconciler<Job> {
  private final WorkloadLifecycle<Job> lifecycle;
  private final SharedVersions versions;

  /** The client of its writes (fabric8's retry off); null: the reconcile context's. */
  private final KubernetesClient writes;

  public JobReconciler(WorkloadLifecycle<Job> lifecycle, SharedVersions versions) {
    this(lifecycle, versions, null);
  }

  /**
   * With the writes (and the live reads that decide them) sent through {@code writes}, a client
   * that sends each request once, so that a write of unknown outcome reaches the lifecycle's
   * read-back instead of being re-sent ({@link WorkloadLifecycle}).
   */
  public JobReconciler(
      WorkloadLifecycle<Job> lifecycle, SharedVersions versions, KubernetesClient writes) {
    this.lifecycle = lifecycle;
    this.versions = versions;
    this.writes = writes;
  }

  @Override
  public List<EventSource<?, Job>> prepareEventSources(EventSourceContext<Job> context) {
    return List.of(OwnedWorkloads.eventSource(context, Job.class, "Job", versions));
  }

  @Override
  public UpdateControl<Job> reconcile(Job job, Context<Job> context) {
    if (context.isPrimaryResourceDeleted()) {
      lifecycle.deleted(client(context), job);
    } else {
      lifecycle.reconcile(
          client(context),
          job,
          OwnedWorkloads.find(context, lifecycle.workloadName(job)),
          created -> OwnedWorkloads.created(context, created));
    }
    return UpdateControl.noUpdate();
  }

  private KubernetesClient client(Context<Job> context) {
    return writes == null ? context.getClient() : writes;
  }
}
