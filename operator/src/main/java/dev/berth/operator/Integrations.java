package dev.berth.operator;

import dev.berth.operator.informers.InformerCaches;
import dev.berth.operator.integration.Lifecycles;
import dev.berth.operator.integration.job.JobAdapter;
import dev.berth.operator.integration.job.JobReconciler;
import dev.berth.operator.integration.jobset.JobSet;
import dev.berth.operator.integration.jobset.JobSetReconciler;
import dev.berth.operator.integration.kubeflow.MPIJob;
import dev.berth.operator.integration.kubeflow.MPIJobReconciler;
import dev.berth.operator.integration.kubeflow.PyTorchJob;
import dev.berth.operator.integration.kubeflow.PyTorchJobReconciler;
import dev.berth.operator.integration.lws.LeaderWorkerSet;
import dev.berth.operator.integration.pod.PodAdapter;
import dev.berth.operator.integration.pod.PodGroupLifecycle;
import dev.berth.operator.integration.pod.PodWorkloadReconciler;
import dev.berth.operator.integration.ray.RayCluster;
import dev.berth.operator.integration.ray.RayClusterAdapter;
import dev.berth.operator.integration.ray.RayClusterReconciler;
import dev.berth.operator.integration.ray.RayJob;
import dev.berth.operator.integration.ray.RayJobAdapter;
import dev.berth.operator.integration.ray.RayJobReconciler;
import dev.berth.operator.integration.trainjob.TrainJob;
import dev.berth.operator.integration.trainjob.TrainJobReconciler;
import dev.berth.operator.kube.SharedVersions;
import dev.berth.webhook.integration.Framework;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The operator's half of the registry of workload kinds: for each {@link Framework} (its name, API
 * kind and webhooks, in admission-webhook so that the webhook server and the chart's test read it
 * too), its resource class and its reconciler, an adapter ({@code Integration}) under the generic
 * reconciler ({@code IntegrationReconciler}). A switch over the registry, so that a kind added
 * there without its adapter does not compile. {@link BerthOperator} registers the kinds {@code
 * integrations.frameworks} lists; docs/integrations.md walks through adding one.
 */
public final class Integrations {
  private Integrations() {}

  /** Makes a kind's reconciler from what every kind shares. */
  @FunctionalInterface
  public interface ReconcilerFactory {
    Reconciler<?> create(
        Lifecycles lifecycles,
        InformerCaches caches,
        SharedVersions versions,
        KubernetesClient writes);
  }

  /**
   * A kind the operator runs.
   *
   * @param type the resource class its reconciler and informer read
   * @param reconciler its adapter under the generic reconciler; empty for a kind whose pods the pod
   *     integration runs ({@link Framework#runByPods})
   */
  public record Kind(
      Framework framework,
      Class<? extends HasMetadata> type,
      Optional<ReconcilerFactory> reconciler) {
    Kind(Framework framework, Class<? extends HasMetadata> type, ReconcilerFactory reconciler) {
      this(framework, type, Optional.of(reconciler));
    }
  }

  /** The kind of {@code framework}. */
  public static Kind of(Framework framework) {
    return switch (framework) {
      case BATCH_JOB ->
          new Kind(
              framework,
              Job.class,
              (lifecycles, caches, versions, writes) ->
                  new JobReconciler(lifecycles.of(new JobAdapter()), versions, writes));
      case JOBSET -> new Kind(framework, JobSet.class, JobSetReconciler::create);
      case POD ->
          new Kind(
              framework,
              Pod.class,
              (lifecycles, caches, versions, writes) ->
                  new PodWorkloadReconciler(
                      lifecycles.of(new PodAdapter()),
                      new PodGroupLifecycle(
                              lifecycles.priorities(),
                              lifecycles.flavors(),
                              lifecycles.events(),
                              lifecycles.clock(),
                              lifecycles.podsReady())
                          .devices(lifecycles.devices()),
                      versions,
                      writes));
      // Its pods are the pod integration's, each queued on its own; nothing reads the Deployment.
      case DEPLOYMENT -> new Kind(framework, Deployment.class, Optional.empty());
      // Its pods are one pod group, the pod integration's; nothing reads the StatefulSet.
      case STATEFULSET -> new Kind(framework, StatefulSet.class, Optional.empty());
      // Each replica group is one pod group, the pod integration's; nothing reads the LWS.
      case LEADERWORKERSET -> new Kind(framework, LeaderWorkerSet.class, Optional.empty());
      case RAYJOB ->
          new Kind(
              framework,
              RayJob.class,
              (lifecycles, caches, versions, writes) ->
                  new RayJobReconciler(lifecycles.of(new RayJobAdapter()), versions, writes));
      case RAYCLUSTER ->
          new Kind(
              framework,
              RayCluster.class,
              (lifecycles, caches, versions, writes) ->
                  new RayClusterReconciler(
                      lifecycles.of(new RayClusterAdapter()), versions, writes));
      case PYTORCHJOB ->
          new Kind(
              framework,
              PyTorchJob.class,
              (lifecycles, caches, versions, writes) ->
                  new PyTorchJobReconciler(lifecycles, versions, writes));
      case MPIJOB ->
          new Kind(
              framework,
              MPIJob.class,
              (lifecycles, caches, versions, writes) ->
                  new MPIJobReconciler(lifecycles, versions, writes));
      case TRAINJOB ->
          new Kind(framework, TrainJob.class, (l, c, v, w) -> TrainJobReconciler.create(l, v, w));
    };
  }

  /** Every kind, in registry order. */
  public static List<Kind> all() {
    return Arrays.stream(Framework.values()).map(Integrations::of).toList();
  }
}
