package dev.berth.operator.integration.job;

import dev.berth.operator.integration.IntegrationReconciler;
import dev.berth.operator.integration.WorkloadLifecycle;
import dev.berth.operator.kube.SharedVersions;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;

/** Managed batch/v1 Jobs (those with {@code berth.dev/queue-name}), with their Workloads. */
public final class JobReconciler extends IntegrationReconciler<Job> implements Reconciler<Job> {
  public JobReconciler(WorkloadLifecycle<Job> lifecycle, SharedVersions versions) {
    this(lifecycle, versions, null);
  }

  /** With its writes sent once through {@code writes} (see {@link IntegrationReconciler}). */
  public JobReconciler(
      WorkloadLifecycle<Job> lifecycle, SharedVersions versions, KubernetesClient writes) {
    super(Job.class, lifecycle, versions, writes);
  }
}
