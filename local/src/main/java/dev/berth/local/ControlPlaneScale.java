package dev.berth.local;

import java.time.Duration;
import java.util.List;

/**
 * Settings for a control plane of thousands of Jobs and Nodes, where the defaults are made for a
 * test's handful. kube-controller-manager's and kube-scheduler's API clients at {@code apiQps} and
 * {@code apiBurst} (defaults 20/30 and 50/100, at which the Job controller alone needs minutes to
 * create 10,000 pods); {@code concurrentJobSyncs} Job controller workers (default 5, each waiting
 * on its requests in turn); {@code nodeMonitorGracePeriod} before the node lifecycle controller
 * takes a Node whose Lease is late for gone (default 50 s: on a loaded machine KWOK renews a
 * thousand Leases late, and the Node would be tainted unschedulable although nothing happened to
 * it); and {@code kwokWorkers}, how many pod stages, Node stages and Node Lease renewals KWOK plays
 * at once (default 4 each: at 10,000 pods KWOK started bound pods minutes late, one status PATCH at
 * a time per worker, and they held their quota without running).
 */
public record ControlPlaneScale(
    int apiQps,
    int apiBurst,
    int concurrentJobSyncs,
    Duration nodeMonitorGracePeriod,
    int kwokWorkers) {
  public ControlPlaneScale {
    if (apiQps <= 0 || apiBurst < apiQps) {
      throw new IllegalArgumentException(
          "apiQps " + apiQps + " must be positive and apiBurst " + apiBurst + " at least apiQps");
    }
    if (concurrentJobSyncs <= 0) {
      throw new IllegalArgumentException(
          "concurrentJobSyncs " + concurrentJobSyncs + " must be positive");
    }
    if (nodeMonitorGracePeriod.toSeconds() <= 0) {
      throw new IllegalArgumentException(
          "nodeMonitorGracePeriod " + nodeMonitorGracePeriod + " must be at least a second");
    }
    if (kwokWorkers <= 0) {
      throw new IllegalArgumentException("kwokWorkers " + kwokWorkers + " must be positive");
    }
  }

  /** kube-controller-manager's flags for these settings. */
  List<String> controllerManagerFlags() {
    return List.of(
        "--kube-api-qps=" + apiQps,
        "--kube-api-burst=" + apiBurst,
        "--concurrent-job-syncs=" + concurrentJobSyncs,
        "--node-monitor-grace-period=" + nodeMonitorGracePeriod.toSeconds() + "s");
  }

  /**
   * KWOK's configuration document for these settings, one more document in the file its {@code
   * --config} reads beside the stages. KWOK has no flags for its workers.
   */
  String kwokConfiguration() {
    return """
        apiVersion: config.kwok.x-k8s.io/v1alpha1
        kind: KwokConfiguration
        options:
          podPlayStageParallelism: %d
          nodePlayStageParallelism: %d
          nodeLeaseParallelism: %d
        """
        .formatted(kwokWorkers, kwokWorkers, kwokWorkers);
  }
}
