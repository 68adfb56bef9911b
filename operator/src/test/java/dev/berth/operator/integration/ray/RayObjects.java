package dev.berth.operator.integration.ray;

import dev.berth.api.v1beta1.PodSet;
import dev.berth.api.v1beta1.Workload;
import dev.berth.operator.integration.AdmittedWorkloads;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;

/** RayClusters and RayJobs as their owners write them, and their Workloads as admitted. */
final class RayObjects {
  private RayObjects() {}

  /**
   * A cluster spec: a CPU head and a group "gpu" of {@code replicas} × {@code hosts} 8-GPU pods.
   */
  static String clusterSpec(int replicas, int hosts) {
    return """
        headGroupSpec:
          rayStartParams: {dashboard-host: 0.0.0.0}
          template:
            spec:
              containers:
              - name: ray-head
                image: rayproject/ray:2.9.0
                resources: {requests: {cpu: "2", memory: 8Gi}}
        workerGroupSpecs:
        - groupName: gpu
          replicas: %d
          minReplicas: 0
          maxReplicas: 8
          numOfHosts: %d
          rayStartParams: {}
          template:
            metadata:
              annotations: {note: kept}
            spec:
              containers:
              - name: ray-worker
                image: rayproject/ray:2.9.0
                resources: {limits: {nvidia.com/gpu: "8"}}
        """
        .formatted(replicas, hosts);
  }

  static RayCluster cluster(int replicas, int hosts) {
    String yaml =
        """
        apiVersion: ray.io/v1
        kind: RayCluster
        metadata: {name: rc, namespace: ns, uid: rc-uid, labels: {berth.dev/queue-name: lq}}
        spec:
          suspend: true
        """
            + clusterSpec(replicas, hosts).indent(2);
    return Serialization.unmarshal(yaml, RayCluster.class);
  }

  static RayJob job(String submissionMode) {
    String yaml =
        """
        apiVersion: ray.io/v1
        kind: RayJob
        metadata: {name: rj, namespace: ns, uid: rj-uid, labels: {berth.dev/queue-name: lq}}
        spec:
          suspend: true
          shutdownAfterJobFinishes: true
          entrypoint: python train.py
        %s
          rayClusterSpec:
        """
                .formatted(
                    submissionMode == null ? "" : "  submissionMode: " + submissionMode + "\n")
            + clusterSpec(2, 1).indent(4);
    return Serialization.unmarshal(yaml, RayJob.class);
  }

  /** The Workload of {@code podSets} as admitted: every podSet on flavor {@code flavor}. */
  static Workload admitted(List<PodSet> podSets, String flavor) {
    return AdmittedWorkloads.onFlavor(podSets, flavor);
  }

  /** A pod in {@code phase}. */
  static Pod pod(String phase) {
    return new PodBuilder()
        .withNewMetadata()
        .withName("p")
        .endMetadata()
        .withNewStatus()
        .withPhase(phase)
        .endStatus()
        .build();
  }
}
