package dev.berth.operator.integration.ray;

import dev.berth.api.v1beta1.PodSet;
import dev.berth.api.v1beta1.Workload;
import dev.berth.operator.integration.Integration;
import dev.berth.operator.integration.OwnerStatuses;
import dev.berth.operator.integration.PriorityResolver;
import dev.berth.operator.integration.WorkloadNames;
import dev.berth.operator.kube.Copies;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A RayCluster as one Workload: a podSet for its head and one per worker group ({@link
 * RayPodSets}), started by unsuspending it with the flavors in each group's template. KubeRay
 * deletes a suspended cluster's pods; the quota goes back once it reports the cluster suspended and
 * none of its pods (label {@code ray.io/cluster}) is left. A RayCluster never finishes (as in
 * Kueue): it holds its quota until it is deleted or evicted. A RayJob's RayCluster is its RayJob's
 * (one Workload covers both), so this adapter leaves it alone.
 */
public final class RayClusterAdapter implements Integration<RayCluster> {
  /** The label KubeRay puts on every pod of a cluster, with the cluster's name. */
  public static final String CLUSTER_LABEL = "ray.io/cluster";

  @Override
  public String kind() {
    return "RayCluster";
  }

  @Override
  public String workloadName(RayCluster cluster) {
    return WorkloadNames.of("raycluster", cluster);
  }

  @Override
  public Workload newWorkload(RayCluster cluster, PriorityResolver priorities) {
    return RayPodSets.newWorkload(
        cluster,
        kind(),
        workloadName(cluster),
        podSets(cluster),
        cluster.getSpec().headGroupSpec.template,
        priorities);
  }

  @Override
  public List<PodSet> podSets(RayCluster cluster) {
    return RayPodSets.of(cluster.getSpec());
  }

  /** Not one a RayJob created: that one runs under its RayJob's Workload. */
  @Override
  public boolean manages(RayCluster cluster) {
    return cluster.getSpec() != null
        && cluster.getSpec().headGroupSpec != null
        && !ofRayJob(cluster);
  }

  /** Whether a RayJob is the cluster's controller owner. */
  static boolean ofRayJob(HasMetadata cluster) {
    var owners = cluster.getMetadata().getOwnerReferences();
    return owners != null
        && owners.stream()
            .anyMatch(
                o ->
                    Boolean.TRUE.equals(o.getController())
                        && "RayJob".equals(o.getKind())
                        && o.getApiVersion() != null
                        && o.getApiVersion().startsWith("ray.io/"));
  }

  @Override
  public boolean isSuspended(RayCluster cluster) {
    return Boolean.TRUE.equals(cluster.getSpec().suspend);
  }

  @Override
  public RayCluster suspended(RayCluster cluster) {
    RayCluster copy = Copies.deep(cluster);
    copy.getSpec().suspend = true;
    return copy;
  }

  @Override
  public RayCluster admitted(RayCluster cluster, Workload workload, FlavorLookup flavors) {
    RayCluster copy = Copies.deep(cluster);
    RayPodSets.admit(copy.getSpec(), workload, flavors);
    copy.getSpec().suspend = false;
    return copy;
  }

  @Override
  public RayCluster restored(RayCluster cluster, Workload workload) {
    RayCluster copy = suspended(cluster);
    RayPodSets.restore(copy.getSpec(), workload);
    return copy;
  }

  /** Never: a RayCluster serves until it is deleted. */
  /**
   * KubeRay's {@code state} ({@code ready}, {@code suspended}), else its condition that holds and
   * changed last, else the default.
   */
  @Override
  public String ownerStatus(RayCluster cluster) {
    RayCluster.Status status = cluster.getStatus();
    if (status != null && status.state != null && !status.state.isEmpty()) {
      return status.state;
    }
    return OwnerStatuses.latestHolding(status == null ? null : status.conditions)
        .orElseGet(() -> Integration.super.ownerStatus(cluster));
  }

  @Override
  public Optional<Finish> finished(RayCluster cluster) {
    return Optional.empty();
  }

  /**
   * 0 once KubeRay reports a suspended cluster suspended (it has deleted every pod); otherwise its
   * pods may run, counted as one: only whether any runs is read. The pods themselves are listed
   * live before the quota goes back ({@link #hasPodsToCount(RayCluster, List)}).
   */
  @Override
  public int activePods(RayCluster cluster) {
    return isSuspended(cluster) && stopped(cluster.getStatus()) ? 0 : 1;
  }

  static boolean stopped(RayCluster.Status status) {
    if (status == null) {
      return false;
    }
    if ("suspended".equals(status.state)) {
      return true;
    }
    return status.conditions != null
        && status.conditions.stream()
            .anyMatch(
                c -> "RayClusterSuspended".equals(c.get("type")) && "True".equals(c.get("status")));
  }

  @Override
  public Map<String, String> podLabels(RayCluster cluster) {
    return Map.of(CLUSTER_LABEL, cluster.getMetadata().getName());
  }

  /** Any pod of the cluster still there and not ended, running or terminating, holds its node. */
  @Override
  public boolean hasPodsToCount(RayCluster cluster, List<Pod> pods) {
    return hasPodsToCount(cluster) || pods.stream().anyMatch(RayClusterAdapter::holdsNode);
  }

  /** A pod that has not ended (Succeeded or Failed): it may still hold its node's devices. */
  static boolean holdsNode(Pod pod) {
    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
    return !"Succeeded".equals(phase) && !"Failed".equals(phase);
  }

  /** Every pod once KubeRay reports the cluster {@code ready} (Kueue's PodsReady), else none. */
  @Override
  public int readyPods(RayCluster cluster) {
    return cluster.getStatus() != null && "ready".equals(cluster.getStatus().state)
        ? RayPodSets.total(podSets(cluster))
        : 0;
  }
}
