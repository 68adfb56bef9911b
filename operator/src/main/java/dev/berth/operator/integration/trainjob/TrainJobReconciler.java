package dev.berth.operator.integration.trainjob;

import dev.berth.operator.informers.Informers;
import dev.berth.operator.integration.IntegrationReconciler;
import dev.berth.operator.integration.Lifecycles;
import dev.berth.operator.kube.LeanItemStore;
import dev.berth.operator.kube.SharedVersions;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * Managed TrainJobs, with their Workloads, the runtimes their pod sets come from, and their
 * JobSets' child Jobs. Registered only when the TrainJob CRD is installed (see {@code
 * dev.berth.operator.Integrations}). A runtime created, changed or deleted brings back the
 * TrainJobs that name it: one created before its runtime waits for it, suspended.
 */
public final class TrainJobReconciler extends IntegrationReconciler<TrainJob>
    implements Reconciler<TrainJob> {
  /** The child-Job informer's index by {@code namespace/jobset-name} (the TrainJob's name). */
  static final String CHILD_JOBS = "berth.dev/child-jobs-by-trainjob";

  static final String CLUSTER_KIND = "ClusterTrainingRuntime";

  private final Sources sources;

  private TrainJobReconciler(
      Lifecycles lifecycles, Sources sources, SharedVersions versions, KubernetesClient writes) {
    super(
        TrainJob.class,
        lifecycles.of(new TrainJobAdapter(sources::runtime, sources::children)),
        versions,
        writes);
    this.sources = sources;
  }

  /** The TrainJob integration, reading runtimes and child Jobs from its own informers. */
  public static TrainJobReconciler create(
      Lifecycles lifecycles, SharedVersions versions, KubernetesClient writes) {
    return new TrainJobReconciler(lifecycles, new Sources(), versions, writes);
  }

  /** The informers the adapter reads, set once JOSDK has prepared them (before any reconcile). */
  private static final class Sources {
    private volatile InformerEventSource<ClusterTrainingRuntime, TrainJob> clusterRuntimes;
    private volatile InformerEventSource<TrainingRuntime, TrainJob> runtimes;
    private volatile InformerEventSource<Job, TrainJob> childJobs;

    Optional<RuntimeSpec> runtime(TrainJob job) {
      TrainJob.RuntimeRef ref = job.getSpec().runtimeRef;
      if (ref == null || ref.name == null || clusterRuntimes == null) {
        return Optional.empty();
      }
      if (ref.kind == null || CLUSTER_KIND.equals(ref.kind)) {
        return clusterRuntimes.get(new ResourceID(ref.name)).map(r -> r.getSpec());
      }
      return runtimes
          .get(new ResourceID(ref.name, job.getMetadata().getNamespace()))
          .map(r -> r.getSpec());
    }

    List<Job> children(TrainJob job) {
      if (childJobs == null) {
        return List.of();
      }
      return childJobs.byIndex(
          CHILD_JOBS, key(job.getMetadata().getNamespace(), job.getMetadata().getName()));
    }
  }

  private static String key(String namespace, String name) {
    return namespace + "/" + name;
  }

  @Override
  protected List<EventSource<?, TrainJob>> ownEventSources(EventSourceContext<TrainJob> context) {
    var trainJobs = context.getPrimaryCache();
    var clusterRuntimes =
        new InformerEventSource<>(
            InformerEventSourceConfiguration.from(ClusterTrainingRuntime.class, TrainJob.class)
                .withItemStore(new LeanItemStore<>())
                .withInformerListLimit(Informers.LIST_LIMIT)
                .withName("trainjob-cluster-runtimes")
                .withSecondaryToPrimaryMapper(
                    (ClusterTrainingRuntime r) ->
                        naming(trainJobs.list(), r, ref -> CLUSTER_KIND.equals(kindOf(ref))))
                .build(),
            context);
    var runtimes =
        new InformerEventSource<>(
            InformerEventSourceConfiguration.from(TrainingRuntime.class, TrainJob.class)
                .withItemStore(new LeanItemStore<>())
                .withInformerListLimit(Informers.LIST_LIMIT)
                .withName("trainjob-runtimes")
                .withSecondaryToPrimaryMapper(
                    (TrainingRuntime r) ->
                        naming(
                            trainJobs.list(r.getMetadata().getNamespace(), j -> true),
                            r,
                            ref -> !CLUSTER_KIND.equals(kindOf(ref))))
                .build(),
            context);
    // Its JobSet's child Jobs: the last pod of an evicted TrainJob stopping changes a child Job's
    // counts and nothing of the TrainJob, yet it is when the quota may go back.
    var children =
        new InformerEventSource<>(
            InformerEventSourceConfiguration.from(Job.class, TrainJob.class)
                .withItemStore(new LeanItemStore<>())
                .withInformerListLimit(Informers.LIST_LIMIT)
                .withName("trainjob-child-jobs")
                .withLabelSelector(TrainJobAdapter.JOBSET_NAME_LABEL)
                .withSecondaryToPrimaryMapper(
                    (Job job) -> {
                      var labels = job.getMetadata().getLabels();
                      String name =
                          labels == null ? null : labels.get(TrainJobAdapter.JOBSET_NAME_LABEL);
                      return name == null
                          ? Set.of()
                          : Set.of(new ResourceID(name, job.getMetadata().getNamespace()));
                    })
                .build(),
            context);
    children.addIndexer(
        CHILD_JOBS,
        job -> {
          var labels = job.getMetadata().getLabels();
          String name = labels == null ? null : labels.get(TrainJobAdapter.JOBSET_NAME_LABEL);
          return name == null ? List.of() : List.of(key(job.getMetadata().getNamespace(), name));
        });
    sources.clusterRuntimes = clusterRuntimes;
    sources.runtimes = runtimes;
    sources.childJobs = children;
    return List.of(clusterRuntimes, runtimes, children);
  }

  private static String kindOf(TrainJob.RuntimeRef ref) {
    return ref.kind == null ? CLUSTER_KIND : ref.kind;
  }

  /** The TrainJobs among {@code jobs} whose runtimeRef names {@code runtime}. */
  private static Set<ResourceID> naming(
      java.util.stream.Stream<TrainJob> jobs,
      HasMetadata runtime,
      Predicate<TrainJob.RuntimeRef> kind) {
    String name = runtime.getMetadata().getName();
    return jobs.filter(
            j ->
                j.getSpec() != null
                    && j.getSpec().runtimeRef != null
                    && name.equals(j.getSpec().runtimeRef.name)
                    && kind.test(j.getSpec().runtimeRef))
        .map(ResourceID::fromResource)
        .collect(Collectors.toSet());
  }
}
