package dev.berth.operator.integration.jobset;

import dev.berth.operator.informers.InformerCaches;
import dev.berth.operator.informers.Informers;
import dev.berth.operator.integration.IntegrationReconciler;
import dev.berth.operator.integration.Lifecycles;
import dev.berth.operator.integration.WorkloadLifecycle;
import dev.berth.operator.kube.LeanItemStore;
import dev.berth.operator.kube.SharedVersions;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.Mappers;
import java.util.List;

/**
 * Managed JobSets, with their Workloads and their child Jobs. Registered only when the JobSet CRD
 * is installed (see {@code dev.berth.operator.Integrations}).
 */
public final class JobSetReconciler extends IntegrationReconciler<JobSet>
    implements Reconciler<JobSet> {
  /**
   * The child-Job informer's index by {@code namespace/jobset-name} (their JobSet label), so that
   * counting a JobSet's running pods reads its child Jobs from the cache, not a LIST per event.
   */
  public static final String CHILD_JOBS = "berth.dev/child-jobs-by-jobset";

  private final InformerCaches caches;

  public JobSetReconciler(
      WorkloadLifecycle<JobSet> lifecycle, InformerCaches caches, SharedVersions versions) {
    this(lifecycle, caches, versions, null);
  }

  /** With its writes sent once through {@code writes} (see {@link IntegrationReconciler}). */
  public JobSetReconciler(
      WorkloadLifecycle<JobSet> lifecycle,
      InformerCaches caches,
      SharedVersions versions,
      KubernetesClient writes) {
    super(JobSet.class, lifecycle, versions, writes);
    this.caches = caches;
  }

  /**
   * The JobSet integration: its adapter reading each JobSet's child Jobs from this reconciler's
   * child-Job index (a cache read, not a LIST per event).
   */
  public static JobSetReconciler create(
      Lifecycles lifecycles,
      InformerCaches caches,
      SharedVersions versions,
      KubernetesClient writes) {
    JobSetAdapter adapter =
        new JobSetAdapter(
            js ->
                caches.byIndex(
                    Job.class,
                    CHILD_JOBS,
                    childJobsKey(js.getMetadata().getNamespace(), js.getMetadata().getName())));
    return new JobSetReconciler(lifecycles.of(adapter), caches, versions, writes);
  }

  /** The index key of a JobSet's child Jobs. */
  public static String childJobsKey(String namespace, String jobSetName) {
    return namespace + "/" + jobSetName;
  }

  @Override
  protected List<EventSource<?, JobSet>> ownEventSources(EventSourceContext<JobSet> context) {
    // Its child Jobs too: the last pod of an evicted JobSet stopping changes a child Job's
    // terminating count and nothing of the JobSet, yet it is when the quota may go back.
    var childJobs =
        InformerEventSourceConfiguration.from(Job.class, JobSet.class)
            .withItemStore(new LeanItemStore<>())
            .withInformerListLimit(Informers.LIST_LIMIT)
            .withName("jobset-child-jobs")
            .withSecondaryToPrimaryMapper(Mappers.fromOwnerReferences(JobSet.class, false))
            .withLabelSelector(JobSetAdapter.JOBSET_NAME_LABEL)
            .build();
    InformerEventSource<Job, JobSet> children = new InformerEventSource<>(childJobs, context);
    children.addIndexer(
        CHILD_JOBS,
        job -> {
          var labels = job.getMetadata().getLabels();
          String name = labels == null ? null : labels.get(JobSetAdapter.JOBSET_NAME_LABEL);
          return name == null
              ? List.of()
              : List.of(childJobsKey(job.getMetadata().getNamespace(), name));
        });
    caches.add(Job.class, children);
    return List.of(children);
  }
}
